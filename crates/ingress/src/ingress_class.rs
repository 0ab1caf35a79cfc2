//! Which HTTPProxies a controller takes, by ingress class, as Contour decides it (its
//! `internal/ingressclass` package, applied when objects enter its cache in
//! `internal/dag/cache.go` and again by its load-balancer status writer).
//!
//! An HTTPProxy's class is the first of the annotations `projectcontour.io/ingress.class` and
//! `kubernetes.io/ingress.class` that is present, when it is not empty, else
//! `spec.ingressClassName`. With no configured class names (`--ingress-class-name` absent or
//! empty) a proxy matches when its class is empty or `contour`; otherwise its class must be
//! one of the names, compared exactly (case and spaces count).
//!
//! A proxy that does not match is not the controller's at all: it is not processed (a root
//! including it sees no such proxy), nothing of it is served and its status is not written.

use serde_json::Value;

use crate::types::HttpProxy;

/// The class matched when no class name is configured (besides no class at all).
pub const DEFAULT_CLASS_NAME: &str = "contour";

/// The annotations naming a class, in the order Contour reads them.
pub const CLASS_ANNOTATIONS: [&str; 2] =
    ["projectcontour.io/ingress.class", "kubernetes.io/ingress.class"];

/// `--ingress-class-name` as Contour reads it: an empty value configures no class; any other
/// value is split at every comma and the parts are kept as they are (not trimmed, empty parts
/// kept: `a,` configures `a` and the empty class, which matches proxies without a class).
pub fn class_names(flag: &str) -> Vec<String> {
    if flag.is_empty() { Vec::new() } else { flag.split(',').map(str::to_owned).collect() }
}

/// The class `proxy` asks for, `""` when none: the first class annotation present (a present
/// one shadows the next even when empty), if not empty; else `spec.ingressClassName`.
pub fn proxy_class(proxy: &HttpProxy) -> &str {
    let annotation = proxy
        .metadata
        .extra
        .get("annotations")
        .and_then(Value::as_object)
        .and_then(|annotations| CLASS_ANNOTATIONS.iter().find_map(|key| annotations.get(*key)))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if annotation.is_empty() {
        proxy.spec.ingress_class_name.as_deref().unwrap_or_default()
    } else {
        annotation
    }
}

/// Whether an object of class `class` (`""`: none) is for a controller configured with
/// `class_names`.
pub fn class_matches(class: &str, class_names: &[String]) -> bool {
    if class_names.is_empty() {
        class.is_empty() || class == DEFAULT_CLASS_NAME
    } else {
        class_names.iter().any(|name| name == class)
    }
}

/// Whether `proxy` is for a controller configured with `class_names` (Contour's
/// `MatchesHTTPProxy`).
pub fn proxy_matches(proxy: &HttpProxy, class_names: &[String]) -> bool {
    class_matches(proxy_class(proxy), class_names)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn proxy(annotations: Value, spec_class: Option<&str>) -> HttpProxy {
        let mut value = json!({"metadata": {"namespace": "ns", "name": "p"}, "spec": {}});
        if !annotations.is_null() {
            value["metadata"]["annotations"] = annotations;
        }
        if let Some(class) = spec_class {
            value["spec"]["ingressClassName"] = json!(class);
        }
        HttpProxy::from_value(&value).unwrap()
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn without_configured_names_no_class_and_contour_match() {
        assert!(proxy_matches(&proxy(Value::Null, None), &[]));
        assert!(proxy_matches(&proxy(Value::Null, Some("")), &[]));
        assert!(proxy_matches(&proxy(Value::Null, Some("contour")), &[]));
        assert!(!proxy_matches(&proxy(Value::Null, Some("other")), &[]));
        assert!(!proxy_matches(&proxy(Value::Null, Some("Contour")), &[]));
    }

    #[test]
    fn configured_names_must_contain_the_class_exactly() {
        let other = names(&["other"]);
        assert!(proxy_matches(&proxy(Value::Null, Some("other")), &other));
        // `contour` and no class are the default only when nothing is configured.
        assert!(!proxy_matches(&proxy(Value::Null, None), &other));
        assert!(!proxy_matches(&proxy(Value::Null, Some("contour")), &other));
        let several = names(&["a", "contour"]);
        assert!(proxy_matches(&proxy(Value::Null, Some("contour")), &several));
        assert!(proxy_matches(&proxy(Value::Null, Some("a")), &several));
        assert!(!proxy_matches(&proxy(Value::Null, Some("b")), &several));
    }

    #[test]
    fn the_flag_is_split_at_commas_untrimmed() {
        assert_eq!(class_names(""), Vec::<String>::new());
        assert_eq!(class_names("other"), names(&["other"]));
        assert_eq!(class_names("a,b"), names(&["a", "b"]));
        assert_eq!(class_names("a, b"), names(&["a", " b"]));
        // A trailing comma lists the empty class: proxies without a class match again.
        let trailing = class_names("a,");
        assert_eq!(trailing, names(&["a", ""]));
        assert!(proxy_matches(&proxy(Value::Null, None), &trailing));
        assert!(!proxy_matches(&proxy(Value::Null, Some("b")), &class_names("a, b")));
    }

    #[test]
    fn annotations_take_precedence_over_the_spec_field() {
        let other = names(&["other"]);
        let annotated = proxy(json!({"projectcontour.io/ingress.class": "other"}), Some("x"));
        assert_eq!(proxy_class(&annotated), "other");
        assert!(proxy_matches(&annotated, &other));
        let kubernetes = proxy(json!({"kubernetes.io/ingress.class": "other"}), None);
        assert!(proxy_matches(&kubernetes, &other));
        assert!(!proxy_matches(&kubernetes, &[]));
        let both = proxy(
            json!({"projectcontour.io/ingress.class": "contour",
                   "kubernetes.io/ingress.class": "other"}),
            None,
        );
        assert_eq!(proxy_class(&both), "contour");
    }

    #[test]
    fn an_empty_annotation_falls_back_to_the_spec_and_shadows_the_next_one() {
        // Present and empty, the first annotation hides `kubernetes.io/ingress.class`; being
        // empty, the spec field decides.
        let shadowing = proxy(
            json!({"projectcontour.io/ingress.class": "",
                   "kubernetes.io/ingress.class": "other"}),
            Some("spec-class"),
        );
        assert_eq!(proxy_class(&shadowing), "spec-class");
        let empty_only = proxy(json!({"kubernetes.io/ingress.class": ""}), None);
        assert_eq!(proxy_class(&empty_only), "");
        assert!(proxy_matches(&empty_only, &[]));
        let unrelated = proxy(json!({"example.com/x": "other"}), Some("contour"));
        assert_eq!(proxy_class(&unrelated), "contour");
    }
}
