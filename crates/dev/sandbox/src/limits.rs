//! The size bound on stored objects: what etcd's request size limit does for kube-apiserver.
//!
//! kube-apiserver stores every object in etcd, which refuses a request over
//! `--max-request-bytes` (1.5 MiB by default, the value kube-apiserver's own comments in
//! k8s.io/apiserver/pkg/server/config.go plan for). The storage layer does not translate
//! that error, so `responsewriters.ErrorToAPIStatus`
//! (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go) answers 500 with no
//! reason and etcd's text, `etcdserver: request is too large`. The sandbox has no etcd, so
//! it measures the object as compact JSON instead, and it does so before admission and
//! again before storing, dry runs included: a patch that builds a huge object is refused
//! before anything else handles it.

use serde_json::Value;

use crate::status::ApiError;

/// Largest object the sandbox stores or answers with, as compact JSON (etcd's default
/// `--max-request-bytes`, 1.5 MiB).
pub const MAX_OBJECT_BYTES: usize = 1_572_864;

/// etcd's error text, as kube-apiserver passes it to clients.
pub const OBJECT_TOO_LARGE: &str = "etcdserver: request is too large";

/// Refuses an object whose compact JSON is over [`MAX_OBJECT_BYTES`]; measuring stops at
/// the limit, so a huge object costs no more to refuse than one at the limit.
pub fn check_object_size(object: &Value) -> Result<(), ApiError> {
    let size = certgate_patch::encoded_len_up_to(object, MAX_OBJECT_BYTES);
    if size > MAX_OBJECT_BYTES {
        return Err(ApiError::new(500, "", OBJECT_TOO_LARGE));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn objects_at_the_limit_pass_and_one_byte_more_is_refused_as_etcd_does() {
        // {"a":"…"} is 8 bytes of framing around the string.
        let at_limit = json!({"a": "x".repeat(MAX_OBJECT_BYTES - 8)});
        assert_eq!(serde_json::to_vec(&at_limit).unwrap().len(), MAX_OBJECT_BYTES);
        assert!(check_object_size(&at_limit).is_ok());
        let over = json!({"a": "x".repeat(MAX_OBJECT_BYTES - 7)});
        let err = check_object_size(&over).unwrap_err();
        assert_eq!(
            (err.code, err.reason.as_ref(), err.message.as_str()),
            (500, "", OBJECT_TOO_LARGE)
        );
        let body = err.body();
        assert!(body.get("reason").is_none(), "an unknown reason is omitted: {body}");
    }
}
