//! Handing serving certificates from their provider (the dynamic-serving loop) to the running
//! server: the latest one wins, and the server waits for the first.

use tokio::sync::watch;

use certgate_serving::PemPair;

/// A new feed: the provider keeps the publisher, the server the feed.
pub fn certificate_feed() -> (CertificatePublisher, CertificateFeed) {
    let (sender, receiver) = watch::channel(None);
    (CertificatePublisher(sender), CertificateFeed(receiver))
}

/// The provider's end.
#[derive(Debug)]
pub struct CertificatePublisher(watch::Sender<Option<PemPair>>);

impl CertificatePublisher {
    /// Makes `pair` the certificate to serve from now on.
    pub fn publish(&self, pair: PemPair) {
        self.0.send_replace(Some(pair));
    }
}

/// The server's end.
#[derive(Debug)]
pub struct CertificateFeed(watch::Receiver<Option<PemPair>>);

impl CertificateFeed {
    /// The first certificate, once published; `None` when the provider stopped before.
    pub async fn first(&mut self) -> Option<PemPair> {
        let pair = self.0.wait_for(Option::is_some).await.ok()?;
        pair.clone()
    }

    /// The next certificate published after the last one seen; `None` once the provider
    /// has stopped.
    pub async fn next(&mut self) -> Option<PemPair> {
        self.0.changed().await.ok()?;
        self.0.borrow_and_update().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(n: u8) -> PemPair {
        PemPair { cert: vec![n], key: vec![n] }
    }

    #[tokio::test]
    async fn delivers_the_latest_pair() {
        let (publisher, mut feed) = certificate_feed();
        publisher.publish(pair(1));
        assert_eq!(feed.first().await, Some(pair(1)));
        publisher.publish(pair(2));
        publisher.publish(pair(3));
        assert_eq!(feed.next().await, Some(pair(3)));
        drop(publisher);
        assert_eq!(feed.next().await, None);
    }

    #[tokio::test]
    async fn ends_when_the_provider_stops_before_any_pair() {
        let (publisher, mut feed) = certificate_feed();
        drop(publisher);
        assert_eq!(feed.first().await, None);
    }
}
