//! Why a template could not be resolved, with the text upstream writes into the
//! `policy.open-cluster-management.io/hub-templates-error` annotation (§4.1).

/// What kind of failure, for the caller's retry decision (§4 step 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveErrorKind {
    /// Syntax, NotFound, restricted namespace, denied function …: the replica is still
    /// written, carrying the error annotation.
    Permanent,
    /// Forbidden or Unauthorized: written like a permanent error, but the update path
    /// retries later (RBAC grants produce no event).
    Forbidden,
    /// Missing API resource, Internal, ServiceUnavailable, Timeout, TooManyRequests: retry
    /// with back-off and do not write the replica.
    Retryable,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ResolveError {
    /// Upstream's text, e.g. `failed to resolve the template {...}: template: tmpl:3:12:
    /// executing "tmpl" at <fromSecret ...>: error calling fromSecret: ...`.
    pub message: String,
    pub kind: ResolveErrorKind,
}

impl ResolveError {
    pub(crate) fn permanent(message: String) -> Self {
        Self { message, kind: ResolveErrorKind::Permanent }
    }

    /// The line (and column, for execution errors) Go's text/template names in the message
    /// (`template: tmpl:11:24: executing ...`, `template: tmpl:3: unexpected ...`): a line of
    /// the YAML the propagator renders from the policy template, not of the user's file.
    pub fn template_position(&self) -> Option<(usize, Option<usize>)> {
        template_position(&self.message)
    }
}

/// [`ResolveError::template_position`] of any message.
pub fn template_position(message: &str) -> Option<(usize, Option<usize>)> {
    const MARK: &str = "template: tmpl:";
    let digits = |text: &str| -> Option<(usize, usize)> {
        let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
        text[..end].parse().ok().map(|n| (n, end))
    };
    // The policy template itself (quoted before Go's text) may hold the same words: the last
    // occurrence that parses is Go's.
    message.rmatch_indices(MARK).find_map(|(start, _)| {
        let rest = &message[start + MARK.len()..];
        let (line, used) = digits(rest)?;
        let column = rest[used..].strip_prefix(':').and_then(digits).map(|(c, _)| c);
        Some((line, column))
    })
}

#[cfg(test)]
mod tests {
    use super::template_position;

    #[test]
    fn finds_the_template_line_and_column() {
        let m = "failed to resolve the template {}: template: tmpl:11:24: executing \"tmpl\"";
        assert_eq!(template_position(m), Some((11, Some(24))));
        assert_eq!(template_position("template: tmpl:3: unexpected \"}\""), Some((3, None)));
        assert_eq!(template_position("no position"), None);
        assert_eq!(template_position("template: tmpl:x"), None);
    }
}
