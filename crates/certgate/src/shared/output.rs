//! Standard output as Go's command-line tools treat it: when the reader goes away
//! (`certgate crds | head`), the process exits quietly instead of reporting `Broken pipe` or
//! panicking. Every command writes its output through a [`QuietPipe`] (the binary wraps
//! standard output in one), and [`is_broken_pipe`] recognises the error wherever it surfaces.

use std::io::{self, ErrorKind, Write};

/// The exit status when standard output's reader has gone: success, as for `ripgrep` and
/// `git log`; the reader took what it wanted. (A Go tool dies of SIGPIPE, which a shell reports
/// as 141; `set -o pipefail` scripts would then fail on `certgate ... | head`.)
pub const BROKEN_PIPE_EXIT: i32 = 0;

/// A writer that ends the process quietly (status [`BROKEN_PIPE_EXIT`]) on a broken pipe, and
/// passes every other outcome through.
pub struct QuietPipe<W> {
    inner: W,
    on_broken_pipe: fn() -> !,
}

impl<W: Write> QuietPipe<W> {
    /// Wraps `inner` (standard output) to exit quietly on a broken pipe.
    pub fn new(inner: W) -> Self {
        Self::with_action(inner, exit_quietly)
    }

    /// Wraps `inner` with `on_broken_pipe` called on a broken pipe (tests pass a panic).
    pub fn with_action(inner: W, on_broken_pipe: fn() -> !) -> Self {
        QuietPipe { inner, on_broken_pipe }
    }

    fn check<T>(&self, result: io::Result<T>) -> io::Result<T> {
        match result {
            Err(err) if err.kind() == ErrorKind::BrokenPipe => (self.on_broken_pipe)(),
            other => other,
        }
    }
}

impl<W: Write> Write for QuietPipe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.check(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let result = self.inner.write_all(buf);
        self.check(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.check(result)
    }
}

/// Ends the process with [`BROKEN_PIPE_EXIT`] and nothing on standard error.
pub fn exit_quietly() -> ! {
    std::process::exit(BROKEN_PIPE_EXIT)
}

/// Whether `err` or any of its causes is a broken pipe: the error a command returns after its
/// output's reader has gone, which is no failure of the command.
pub fn is_broken_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(err);
    while let Some(err) = current {
        if err.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == ErrorKind::BrokenPipe) {
            return true;
        }
        current = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts `capacity` bytes, then fails as a closed pipe does.
    struct ClosingPipe {
        written: Vec<u8>,
        capacity: usize,
    }

    impl Write for ClosingPipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let room = self.capacity - self.written.len();
            if room == 0 {
                return Err(io::Error::from(ErrorKind::BrokenPipe));
            }
            let n = buf.len().min(room);
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn broken() -> ! {
        panic!("broken pipe reached");
    }

    #[test]
    fn a_broken_pipe_takes_the_quiet_exit() {
        let mut out =
            QuietPipe::with_action(ClosingPipe { written: Vec::new(), capacity: 4 }, broken);
        out.write_all(b"abc").unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = out.write_all(b"defgh");
        }));
        let panic = result.unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"broken pipe reached"));
    }

    #[test]
    fn other_errors_pass_through() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(ErrorKind::StorageFull))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut out = QuietPipe::with_action(Full, broken);
        assert_eq!(out.write_all(b"x").unwrap_err().kind(), ErrorKind::StorageFull);
        let mut fine = QuietPipe::with_action(Vec::new(), broken);
        writeln!(fine, "hello").unwrap();
        fine.flush().unwrap();
        assert_eq!(fine.inner, b"hello\n");
    }

    #[test]
    fn broken_pipes_are_found_among_causes() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot write the report: {0}")]
        struct Wrapped(#[source] io::Error);
        assert!(is_broken_pipe(&Wrapped(io::Error::from(ErrorKind::BrokenPipe))));
        assert!(!is_broken_pipe(&Wrapped(io::Error::from(ErrorKind::NotFound))));
        let any =
            anyhow::Error::new(Wrapped(io::Error::from(ErrorKind::BrokenPipe))).context("crds");
        assert!(is_broken_pipe(any.as_ref()));
    }
}
