//! Building the status Contour writes for one `HTTPProxy` (spec §4.1).

use crate::types::{DetailedCondition, HttpProxyStatus, SubCondition};

/// Contour's `LongMessageLength`: longer messages are cut to this many bytes.
pub const LONG_MESSAGE_LENGTH: usize = 32760;

/// Condition type of the only condition Contour maintains.
pub const VALID_CONDITION: &str = "Valid";
/// Sub-condition type of every TLS problem.
pub const TLS_ERROR: &str = "TLSError";
/// Sub-condition type for fqdn problems.
pub const VIRTUAL_HOST_ERROR: &str = "VirtualHostError";
/// Sub-condition type of orphaned proxies.
pub const ORPHANED_ERROR: &str = "Orphaned";
/// Sub-condition types of route, service, include and TCP proxy problems (Contour's
/// `apis/projectcontour/v1/detailedconditions.go`).
pub const ROUTE_ERROR: &str = "RouteError";
pub const SERVICE_ERROR: &str = "ServiceError";
pub const INCLUDE_ERROR: &str = "IncludeError";
pub const TCP_PROXY_ERROR: &str = "TCPProxyError";
pub const TCP_PROXY_INCLUDE_ERROR: &str = "TCPProxyIncludeError";
/// certgate's own sub-condition for a field Contour supports and certgate does not serve yet:
/// the proxy is reported invalid rather than served differently from Contour. Not a Contour
/// type; scripts can tell it apart by this type and reason.
pub const UNSUPPORTED_ERROR: &str = "UnsupportedByCertgate";
pub const UNSUPPORTED_REASON: &str = "NotImplemented";

const ERROR_PRESENT_MESSAGE: &str = "At least one error present, see Errors for details";

/// Accumulates errors for the `Valid` condition the way Contour's `DetailedCondition.AddError`
/// does: each error is appended (same type twice gives two entries) and flips the condition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusBuilder {
    errors: Vec<SubCondition>,
}

impl StatusBuilder {
    pub fn new() -> Self {
        StatusBuilder::default()
    }

    /// Contour's `AddError(errorType, reason, message)`.
    pub fn add_error(&mut self, error_type: &str, reason: &str, message: &str) {
        self.errors.push(SubCondition {
            type_: error_type.to_string(),
            status: "True".to_string(),
            reason: reason.to_string(),
            message: truncate_long_message(message),
        });
    }

    pub fn errors(&self) -> &[SubCondition] {
        &self.errors
    }

    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The status as Contour's `ProxyUpdate.Mutate` writes it onto an object without a previous
    /// status. `transition_time` is `lastTransitionTime` (RFC 3339); `None` gives Go's `null`.
    pub fn build(&self, generation: Option<i64>, transition_time: Option<&str>) -> HttpProxyStatus {
        let mut condition = DetailedCondition {
            type_: VALID_CONDITION.to_string(),
            status: "True".to_string(),
            observed_generation: generation.filter(|g| *g != 0),
            last_transition_time: transition_time.map(str::to_string),
            reason: "Valid".to_string(),
            message: "Valid HTTPProxy".to_string(),
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        let (current, description) = if self.errors.is_empty() {
            ("valid", condition.message.clone())
        } else {
            condition.status = "False".to_string();
            condition.reason = "ErrorPresent".to_string();
            condition.message = ERROR_PRESENT_MESSAGE.to_string();
            condition.errors = self.errors.clone();
            match self.errors.iter().find(|e| e.type_ == ORPHANED_ERROR) {
                Some(orphan) => ("orphaned", orphan.message.clone()),
                None => ("invalid", ERROR_PRESENT_MESSAGE.to_string()),
            }
        };
        HttpProxyStatus {
            current_status: Some(current.to_string()),
            description: Some(description),
            load_balancer: Some(serde_json::Value::Object(serde_json::Map::new())),
            conditions: Some(vec![condition]),
            extra: serde_json::Map::new(),
        }
    }
}

/// Go slices the message at byte 32760, possibly inside a UTF-8 sequence; `encoding/json` then
/// writes the broken tail as U+FFFD, which is what the lossy conversion reproduces.
pub fn truncate_long_message(message: &str) -> String {
    if message.len() <= LONG_MESSAGE_LENGTH {
        return message.to_string();
    }
    String::from_utf8_lossy(&message.as_bytes()[..LONG_MESSAGE_LENGTH]).into_owned()
}
