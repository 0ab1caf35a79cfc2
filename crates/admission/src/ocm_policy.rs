//! `/validate` CREATE or UPDATE of an OCM Policy (`policy.open-cluster-management.io/v1`) or
//! PolicySet (`v1beta1`): the checks of governance-policy-propagator's validating webhooks
//! (`policy.open-cluster-management.io.webhook`, `policyset.open-cluster-management.io.webhook`),
//! with their messages, answered as controller-runtime answers a validator's error.
//!
//! Only what the checks read is decoded: the type, `metadata.name`, `metadata.namespace`,
//! `metadata.labels`, `spec.remediationAction` and each template's `objectDefinition` (kept as
//! JSON text) of a Policy; `spec.policies` and each exclusion's `policyName` of a PolicySet.
//! A field the checks read but of the wrong JSON type is a 400, as upstream's decoder refuses it;
//! fields they do not read are left to the CRD schema.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::lenient::Text;
use crate::objects::{ObjectType, expect_type, is_object, present, wrong_type};
use crate::route::Operation;
use crate::verdict::Verdict;
use crate::wire::AdmissionRequest;

/// The API group of OCM's governance resources.
pub(crate) const GROUP: &str = "policy.open-cluster-management.io";

pub(crate) const POLICY: ObjectType =
    ObjectType { api_version: "policy.open-cluster-management.io/v1", kind: "Policy" };
pub(crate) const POLICY_SET: ObjectType =
    ObjectType { api_version: "policy.open-cluster-management.io/v1beta1", kind: "PolicySet" };

/// The label the propagator puts on replicated policies; they skip the name check.
pub const ROOT_POLICY_LABEL: &str = "policy.open-cluster-management.io/root-policy";

/// Most characters (Unicode scalar values) a root policy's name and namespace may have
/// together: a replica is named `<namespace>.<name>` and must fit a 63-character label value.
pub const MAX_NAME_AND_NAMESPACE: usize = 62;

/// Why a Policy is denied: upstream's errors, byte for byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyDenial {
    #[error("the combined length of the policy namespace and name cannot exceed 62 characters")]
    NameTooLong,
    #[error("RemediationAction field of the policy and policy template cannot both be unset")]
    RemediationActionUnset,
}

/// Why a PolicySet is denied: upstream joins its two errors with a newline (`errors.Join`),
/// duplicates first; each lists the policy names in the order they first qualified.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ExclusionDenial {
    /// Names excluded more than once.
    pub duplicates: Vec<String>,
    /// Names excluded but not in `spec.policies`.
    pub unlisted: Vec<String>,
}

impl fmt::Display for ExclusionDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::with_capacity(2);
        if !self.duplicates.is_empty() {
            lines.push(format!(
                "policy in spec.exclusions has a duplicate entry: {}",
                self.duplicates.join(", ")
            ));
        }
        if !self.unlisted.is_empty() {
            lines.push(format!(
                "policy in spec.exclusions is not listed in spec.policies: {}",
                self.unlisted.join(", ")
            ));
        }
        f.write_str(&lines.join("\n"))
    }
}

/// What the Policy checks read of a Policy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyFacts<'a> {
    pub name: String,
    pub namespace: String,
    /// Whether `metadata.labels` has [`ROOT_POLICY_LABEL`] (any value): a replica.
    pub replica: bool,
    /// `spec.remediationAction`, empty when absent or `null`.
    pub remediation_action: String,
    /// `spec.policy-templates`, in order.
    pub templates: Vec<TemplateFacts<'a>>,
}

/// One entry of `spec.policy-templates`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplateFacts<'a> {
    /// A `null` entry, which upstream cannot read (it dereferences a nil pointer).
    Null,
    /// The JSON text of `objectDefinition`; `None` when absent or `null`.
    Template(Option<&'a str>),
}

/// A check that could not run: a `null` template where the remediation check must read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NullTemplate(pub usize);

/// Policy CREATE: the name check (not for replicas), then the remediation check.
pub fn validate_policy_create(
    policy: &PolicyFacts<'_>,
) -> Result<Option<PolicyDenial>, NullTemplate> {
    if !policy.replica
        && policy.name.chars().count() + policy.namespace.chars().count() > MAX_NAME_AND_NAMESPACE
    {
        return Ok(Some(PolicyDenial::NameTooLong));
    }
    validate_remediation_action(policy)
}

/// Policy UPDATE: the remediation check only.
pub fn validate_policy_update(
    policy: &PolicyFacts<'_>,
) -> Result<Option<PolicyDenial>, NullTemplate> {
    validate_remediation_action(policy)
}

/// Without a policy-wide `spec.remediationAction`, the first ConfigurationPolicy template
/// (in order) without its own denies the policy.
fn validate_remediation_action(
    policy: &PolicyFacts<'_>,
) -> Result<Option<PolicyDenial>, NullTemplate> {
    if !policy.remediation_action.is_empty() {
        return Ok(None);
    }
    for (index, template) in policy.templates.iter().enumerate() {
        match template {
            TemplateFacts::Null => return Err(NullTemplate(index)),
            TemplateFacts::Template(definition) => {
                if lacks_remediation_action(*definition) {
                    return Ok(Some(PolicyDenial::RemediationActionUnset));
                }
            }
        }
    }
    Ok(None)
}

/// Whether an `objectDefinition` (JSON text) is a ConfigurationPolicy without a string
/// `spec.remediationAction`, read as upstream reads it through `unstructured.Unstructured`:
///
/// - anything but a JSON object (an array, a string, a number that does not fit a float) has
///   no kind, so it is not checked;
/// - the kind is the top-level string `kind`, but only when `apiVersion` (when a string) parses
///   as a group/version: at most one `/`; any group and version count;
/// - "found" means `spec` is an object with a `remediationAction` that is a string, the empty
///   string included; `null`, another type, or a `spec` that is not an object is not found.
pub fn lacks_remediation_action(object_definition: Option<&str>) -> bool {
    let Some(text) = object_definition else {
        return false;
    };
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    kind(&object) == "ConfigurationPolicy" && !remediation_action_found(&object)
}

/// `Unstructured.GroupVersionKind().Kind`.
fn kind(object: &Map<String, Value>) -> &str {
    let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or_default();
    let api_version = text("apiVersion");
    // schema.ParseGroupVersion: "", "/", "version" and "group/version" parse; more slashes
    // do not, and then the whole GroupVersionKind is empty.
    if api_version != "/" && api_version.matches('/').count() > 1 {
        return "";
    }
    text("kind")
}

/// `unstructured.NestedString(object, "spec", "remediationAction")`'s `found`.
fn remediation_action_found(object: &Map<String, Value>) -> bool {
    match object.get("spec") {
        Some(Value::Object(spec)) => {
            matches!(spec.get("remediationAction"), Some(Value::String(_)))
        }
        _ => false,
    }
}

/// PolicySet CREATE and UPDATE: each excluded policy must be listed once in `spec.policies`.
pub fn validate_exclusions(policies: &[String], exclusions: &[String]) -> Option<ExclusionDenial> {
    if exclusions.is_empty() {
        return None;
    }
    let listed: HashSet<&str> = policies.iter().map(String::as_str).collect();
    let mut seen = HashSet::new();
    let mut denial = ExclusionDenial { duplicates: Vec::new(), unlisted: Vec::new() };
    let (mut duplicated, mut unlisted) = (HashSet::new(), HashSet::new());
    for name in exclusions {
        let name = name.as_str();
        if !seen.insert(name) && duplicated.insert(name) {
            denial.duplicates.push(name.to_owned());
        }
        if !listed.contains(name) && unlisted.insert(name) {
            denial.unlisted.push(name.to_owned());
        }
    }
    (!denial.duplicates.is_empty() || !denial.unlisted.is_empty()).then_some(denial)
}

/// The verdict for a Policy review, CREATE or UPDATE.
pub(crate) fn validate_policy(
    request: &AdmissionRequest<&RawValue>,
    operation: Operation,
) -> Verdict {
    let policy = match decode_policy(request.object, "object") {
        Ok(policy) => policy,
        Err(denied) => return denied,
    };
    let checked = match operation {
        Operation::Create => validate_policy_create(&policy),
        Operation::Update => {
            // As controller-runtime, the old object must decode too, though no rule reads it.
            if let Err(denied) = decode_policy(request.old_object, "oldObject") {
                return denied;
            }
            validate_policy_update(&policy)
        }
    };
    match checked {
        Ok(None) => Verdict::allowed(),
        Ok(Some(denial)) => Verdict::validator_denied(denial.to_string()),
        Err(NullTemplate(index)) => Verdict::bad_request(format!(
            "request.object is not a valid {} {}: spec.policy-templates[{index}] is null",
            POLICY.api_version, POLICY.kind
        )),
    }
}

/// The verdict for a PolicySet review, CREATE or UPDATE.
pub(crate) fn validate_policy_set(
    request: &AdmissionRequest<&RawValue>,
    operation: Operation,
) -> Verdict {
    let set = match decode_policy_set(request.object, "object") {
        Ok(set) => set,
        Err(denied) => return denied,
    };
    if operation == Operation::Update
        && let Err(denied) = decode_policy_set(request.old_object, "oldObject")
    {
        return denied;
    }
    match validate_exclusions(&set.policies, &set.exclusions) {
        None => Verdict::allowed(),
        Some(denial) => Verdict::validator_denied(denial.to_string()),
    }
}

/// What the PolicySet check reads of a PolicySet.
#[derive(Debug, Default)]
struct PolicySetFacts {
    policies: Vec<String>,
    /// Each exclusion's `policyName`, in order (`""` when absent or `null`).
    exclusions: Vec<String>,
}

/// A JSON object read as `T`. serde's derived structs would also read an array, by
/// position, and `null` is not an object: both are refused.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Object<T>, M::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }

        d.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// A field Go reads as its zero value when absent or `null`.
type Nullable<T> = Option<T>;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "S: Deserialize<'de>"))]
struct Envelope<S> {
    #[serde(default)]
    api_version: Text,
    #[serde(default)]
    kind: Text,
    #[serde(default)]
    metadata: Nullable<Object<MetadataIn>>,
    #[serde(default)]
    spec: Nullable<Object<S>>,
}

#[derive(Deserialize)]
struct MetadataIn {
    #[serde(default)]
    name: Nullable<String>,
    #[serde(default)]
    namespace: Nullable<String>,
    #[serde(default)]
    labels: Nullable<BTreeMap<String, Nullable<String>>>,
}

#[derive(Deserialize)]
struct PolicySpecIn<'a> {
    #[serde(default, rename = "remediationAction")]
    remediation_action: Nullable<String>,
    #[serde(default, rename = "policy-templates", borrow)]
    templates: Nullable<Vec<Nullable<Object<TemplateIn<'a>>>>>,
}

#[derive(Deserialize)]
struct TemplateIn<'a> {
    #[serde(default, rename = "objectDefinition", borrow)]
    object_definition: Nullable<&'a RawValue>,
}

#[derive(Deserialize)]
struct PolicySetSpecIn {
    #[serde(default)]
    policies: Nullable<Vec<Nullable<String>>>,
    #[serde(default)]
    exclusions: Nullable<Vec<Nullable<Object<ExclusionIn>>>>,
}

#[derive(Deserialize)]
struct ExclusionIn {
    #[serde(default, rename = "policyName")]
    policy_name: Nullable<String>,
}

/// The request's `field` decoded as an object of `expected`'s type with spec `S`, or the
/// denial saying why it cannot be evaluated.
fn decode<'a, S: Deserialize<'a>>(
    raw: Option<&'a RawValue>,
    field: &str,
    expected: ObjectType,
) -> Result<(MetadataIn, Option<S>), Verdict> {
    let raw = present(raw, field, expected, "admitted")?;
    if !is_object(raw) {
        return Err(wrong_type("", "", field, expected));
    }
    match serde_json::from_str::<Envelope<S>>(raw.get()) {
        Ok(envelope) => {
            expect_type(&envelope.api_version.0, &envelope.kind.0, field, expected)?;
            let metadata = envelope
                .metadata
                .map_or(MetadataIn { name: None, namespace: None, labels: None }, |Object(m)| m);
            Ok((metadata, envelope.spec.map(|Object(s)| s)))
        }
        Err(err) => {
            crate::objects::check_type(raw, field, expected)?;
            Err(Verdict::bad_request(format!(
                "request.{field} is not a valid {} {}: {err}",
                expected.api_version, expected.kind
            )))
        }
    }
}

fn decode_policy<'a>(raw: Option<&'a RawValue>, field: &str) -> Result<PolicyFacts<'a>, Verdict> {
    let (metadata, spec) = decode::<PolicySpecIn<'a>>(raw, field, POLICY)?;
    let replica = metadata.labels.as_ref().is_some_and(|l| l.contains_key(ROOT_POLICY_LABEL));
    let (remediation_action, templates) = match spec {
        Some(spec) => (spec.remediation_action, spec.templates),
        None => (None, None),
    };
    let templates = templates
        .unwrap_or_default()
        .into_iter()
        .map(|template| match template {
            None => TemplateFacts::Null,
            Some(Object(t)) => TemplateFacts::Template(t.object_definition.map(RawValue::get)),
        })
        .collect();
    Ok(PolicyFacts {
        name: metadata.name.unwrap_or_default(),
        namespace: metadata.namespace.unwrap_or_default(),
        replica,
        remediation_action: remediation_action.unwrap_or_default(),
        templates,
    })
}

fn decode_policy_set(raw: Option<&RawValue>, field: &str) -> Result<PolicySetFacts, Verdict> {
    let (_, spec) = decode::<PolicySetSpecIn>(raw, field, POLICY_SET)?;
    let Some(spec) = spec else {
        return Ok(PolicySetFacts::default());
    };
    Ok(PolicySetFacts {
        policies: spec
            .policies
            .unwrap_or_default()
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect(),
        exclusions: spec
            .exclusions
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.and_then(|Object(e)| e.policy_name).unwrap_or_default())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME_TOO_LONG: &str =
        "the combined length of the policy namespace and name cannot exceed 62 characters";
    const UNSET: &str =
        "RemediationAction field of the policy and policy template cannot both be unset";

    fn policy(name: &str, namespace: &str) -> PolicyFacts<'static> {
        PolicyFacts {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            remediation_action: "inform".to_owned(),
            ..PolicyFacts::default()
        }
    }

    fn text(result: Result<Option<PolicyDenial>, NullTemplate>) -> Option<String> {
        result.unwrap().map(|d| d.to_string())
    }

    #[test]
    fn the_texts_are_upstreams() {
        assert_eq!(PolicyDenial::NameTooLong.to_string(), NAME_TOO_LONG);
        assert_eq!(PolicyDenial::RemediationActionUnset.to_string(), UNSET);
    }

    #[test]
    fn name_and_namespace_are_counted_in_characters_and_replicas_are_skipped() {
        let a = |n: usize| "a".repeat(n);
        let cases: Vec<(String, String, bool, Option<&str>)> = vec![
            (a(31), a(31), false, None),
            (a(54), "policies".into(), false, None),
            (a(55), "policies".into(), false, Some(NAME_TOO_LONG)),
            (a(32), a(31), false, Some(NAME_TOO_LONG)),
            (a(62), String::new(), false, None),
            (a(63), String::new(), false, Some(NAME_TOO_LONG)),
            // 62 characters of 2 to 4 bytes each: characters count, not bytes.
            ("é".repeat(31), "ü".repeat(31), false, None),
            ("é".repeat(31), "🦀".repeat(32), false, Some(NAME_TOO_LONG)),
            ("✓".repeat(40), a(22), false, None),
            // A replica is named <namespace>.<name> by the propagator: never checked.
            (a(200), "cluster-a".into(), true, None),
        ];
        for (name, namespace, replica, expected) in cases {
            let facts = PolicyFacts { replica, ..policy(&name, &namespace) };
            assert_eq!(
                text(validate_policy_create(&facts)).as_deref(),
                expected,
                "{name} {namespace} {replica}"
            );
            // UPDATE never checks the name.
            assert_eq!(text(validate_policy_update(&facts)), None);
        }
    }

    #[test]
    fn the_name_check_comes_before_the_remediation_check() {
        let facts = PolicyFacts {
            remediation_action: String::new(),
            templates: vec![TemplateFacts::Template(Some(
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"ConfigurationPolicy"}"#,
            ))],
            ..policy(&"a".repeat(63), "")
        };
        assert_eq!(text(validate_policy_create(&facts)).as_deref(), Some(NAME_TOO_LONG));
        assert_eq!(text(validate_policy_update(&facts)).as_deref(), Some(UNSET));
    }

    #[test]
    fn which_object_definitions_lack_a_remediation_action() {
        let cases: [(&str, bool); 26] = [
            // The plain cases.
            (
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"ConfigurationPolicy","spec":{}}"#,
                true,
            ),
            (
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"ConfigurationPolicy"}"#,
                true,
            ),
            (
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"ConfigurationPolicy","spec":{"remediationAction":"inform"}}"#,
                false,
            ),
            (
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"ConfigurationPolicy","spec":{"remediationAction":"enforce"}}"#,
                false,
            ),
            // Found is "a string is there": the empty string and any text count.
            (r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":""}}"#, false),
            (r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":"whatever"}}"#, false),
            // null, other types, or a spec that is not an object: not found.
            (r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":null}}"#, true),
            (r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":1}}"#, true),
            (r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":["inform"]}}"#, true),
            (r#"{"kind":"ConfigurationPolicy","spec":null}"#, true),
            (r#"{"kind":"ConfigurationPolicy","spec":"inform"}"#, true),
            (r#"{"kind":"ConfigurationPolicy","spec":[{"remediationAction":"inform"}]}"#, true),
            (r#"{"kind":"ConfigurationPolicy","remediationAction":"inform"}"#, true),
            // Keys are case-sensitive; a repeated key counts with its last value.
            (r#"{"kind":"ConfigurationPolicy","spec":{"RemediationAction":"inform"}}"#, true),
            (
                r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":"inform","remediationAction":null}}"#,
                true,
            ),
            (
                r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":null,"remediationAction":"inform"}}"#,
                false,
            ),
            // Only the kind matters, in any group or version...
            (r#"{"apiVersion":"example.com/v9","kind":"ConfigurationPolicy"}"#, true),
            (r#"{"apiVersion":"v1","kind":"ConfigurationPolicy"}"#, true),
            (r#"{"apiVersion":"/","kind":"ConfigurationPolicy"}"#, true),
            (r#"{"apiVersion":7,"kind":"ConfigurationPolicy"}"#, true),
            // ...unless the apiVersion does not parse, which empties the kind.
            (r#"{"apiVersion":"a/b/c","kind":"ConfigurationPolicy"}"#, false),
            // Other kinds, kinds of another case, kinds that are not strings: not checked.
            (
                r#"{"apiVersion":"policy.open-cluster-management.io/v1","kind":"CertificatePolicy"}"#,
                false,
            ),
            (r#"{"kind":"configurationpolicy"}"#, false),
            (r#"{"kind":["ConfigurationPolicy"]}"#, false),
            // What is not an object has no kind.
            (r#"["ConfigurationPolicy"]"#, false),
            (r#"{"kind":"ConfigurationPolicy","spec":{"n":1e400}}"#, false),
        ];
        for (definition, lacks) in cases {
            assert_eq!(lacks_remediation_action(Some(definition)), lacks, "{definition}");
        }
        for other in [None, Some("\"ConfigurationPolicy\""), Some("12")] {
            assert!(!lacks_remediation_action(other), "{other:?}");
        }
    }

    #[test]
    fn the_policy_wide_remediation_action_covers_every_template() {
        let lacking = r#"{"kind":"ConfigurationPolicy"}"#;
        let complete = r#"{"kind":"ConfigurationPolicy","spec":{"remediationAction":"inform"}}"#;
        let cases: Vec<(&str, Vec<TemplateFacts<'_>>, Option<&str>)> = vec![
            ("inform", vec![TemplateFacts::Template(Some(lacking))], None),
            // Any text counts, even one the CRD would refuse.
            ("anything", vec![TemplateFacts::Template(Some(lacking))], None),
            ("", vec![TemplateFacts::Template(Some(lacking))], Some(UNSET)),
            ("", vec![TemplateFacts::Template(Some(complete))], None),
            ("", vec![], None),
            ("", vec![TemplateFacts::Template(None)], None),
            (
                "",
                vec![
                    TemplateFacts::Template(Some(complete)),
                    TemplateFacts::Template(Some(lacking)),
                ],
                Some(UNSET),
            ),
            // The policy-wide action makes null templates unread, as upstream.
            ("inform", vec![TemplateFacts::Null], None),
            // The first lacking template decides before a null one is reached.
            ("", vec![TemplateFacts::Template(Some(lacking)), TemplateFacts::Null], Some(UNSET)),
        ];
        for (action, templates, expected) in cases {
            let facts = PolicyFacts {
                remediation_action: action.to_owned(),
                templates: templates.clone(),
                ..policy("p", "ns")
            };
            assert_eq!(text(validate_policy_create(&facts)).as_deref(), expected, "{templates:?}");
            assert_eq!(text(validate_policy_update(&facts)).as_deref(), expected, "{templates:?}");
        }
        let facts = PolicyFacts {
            remediation_action: String::new(),
            templates: vec![TemplateFacts::Template(Some(complete)), TemplateFacts::Null],
            ..policy("p", "ns")
        };
        assert_eq!(validate_policy_update(&facts), Err(NullTemplate(1)));
    }

    #[test]
    fn exclusions_must_name_listed_policies_once() {
        let names = |list: &[&str]| list.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let duplicate = "policy in spec.exclusions has a duplicate entry: ";
        let unlisted = "policy in spec.exclusions is not listed in spec.policies: ";
        let cases: Vec<(&[&str], &[&str], Option<String>)> = vec![
            (&["a", "b"], &[], None),
            (&[], &[], None),
            (&["a", "b"], &["a"], None),
            (&["a", "b"], &["b", "a"], None),
            (&["a"], &["a", "a"], Some(format!("{duplicate}a"))),
            (&["a"], &["a", "a", "a"], Some(format!("{duplicate}a"))),
            (&["a"], &["c"], Some(format!("{unlisted}c"))),
            (&[], &["c", "d", "c"], Some(format!("{duplicate}c\n{unlisted}c, d"))),
            (
                &["a", "b"],
                &["b", "x", "a", "b", "y", "a", "x"],
                Some(format!("{duplicate}b, a, x\n{unlisted}x, y")),
            ),
            // Names are compared exactly; an empty name is a name like any other.
            (&["A"], &["a"], Some(format!("{unlisted}a"))),
            (&["a"], &[""], Some(unlisted.to_owned())),
        ];
        for (policies, exclusions, expected) in cases {
            let denial = validate_exclusions(&names(policies), &names(exclusions));
            assert_eq!(denial.map(|d| d.to_string()), expected, "{policies:?} {exclusions:?}");
        }
    }
}
