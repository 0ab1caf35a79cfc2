//! Points a failed hub template at the user's own file. Go's text/template names a line of the
//! YAML the propagator renders from the policy template (`template: tmpl:11:24: ...`), which
//! the user never sees; the line is traced back to the field it belongs to, and that field to
//! the line and column where the user wrote it.

use serde_json::Value;

use certgate_templates::pipeline::template_position;

use super::inputs::Written;
use crate::shared::manifests::Source;
use crate::shared::manifests::positions::{self, PathStep, Position, render_path};

/// Where a template error is in the user's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub at: Source,
    /// The failing field, from the root policy: `spec.policy-templates[0].objectDefinition...`.
    pub path: String,
}

/// Locates the error `message` of template `index` of `root` (written at `written`).
pub fn locate(root: &Value, written: &Written, index: usize, message: &str) -> Located {
    let mut steps = vec![
        PathStep::Key("spec".to_owned()),
        PathStep::Key("policy-templates".to_owned()),
        PathStep::Index(index),
        PathStep::Key("objectDefinition".to_owned()),
    ];
    let definition = root.pointer(&format!("/spec/policy-templates/{index}/objectDefinition"));
    // The rendered line's field, and how far into a multi-line value the line is.
    let mut offset = 0;
    if let (Some(definition), Some((line, _))) = (definition, template_position(message)) {
        let rendered = certgate_goyaml::to_yaml(definition);
        let tree = positions::index(&rendered).into_iter().next().map(|d| d.root);
        if let Some((inner, at)) = tree.and_then(|t| t.last_at_or_before(line)) {
            offset = line - at.line;
            steps.extend(inner);
        }
    }
    let path = render_path(&steps);
    let exact = written.positions.get(steps.iter().map(PathStep::as_step));
    let position = match exact.and_then(|node| node.at) {
        // A line inside a multi-line value is as far into the user's value (block scalars keep
        // their lines; anything else is one line anyway).
        Some(at) => Some(Position { line: at.line + offset, column: at.column }),
        None => written.positions.find(steps.iter().map(PathStep::as_step)),
    };
    Located { at: written.at.at(position), path }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::shared::manifests::documents::{Syntax, parse};

    const POLICY: &str = "apiVersion: policy.open-cluster-management.io/v1
kind: Policy
metadata: {name: p, namespace: policies}
spec:
  policy-templates:
    - objectDefinition:
        apiVersion: policy.open-cluster-management.io/v1
        kind: ConfigurationPolicy
        metadata: {name: first}
        spec:
          object-templates:
            - complianceType: musthave
              objectDefinition:
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: copy, namespace: default}
                data:
                  value: '{{hub fromConfigMap \"other\" \"settings\" \"value\" hub}}'
";

    #[test]
    fn the_rendered_line_is_traced_to_the_users_field() {
        let file: Arc<str> = Arc::from("policy.yaml");
        let document = parse(&file, POLICY, Syntax::Yaml).unwrap().remove(0);
        let written = Written { at: document.at.clone(), positions: document.positions.clone() };
        // Line 11 of the rendered template is the ConfigMap's data.value (as in the golden
        // file of the restricted read).
        let rendered = certgate_goyaml::to_yaml(
            document.value.pointer("/spec/policy-templates/0/objectDefinition").unwrap(),
        );
        assert!(rendered.lines().nth(10).unwrap().trim_start().starts_with("value:"), "{rendered}");
        let message = "failed to resolve the template {}: template: tmpl:11:24: executing";
        let located = locate(&document.value, &written, 0, message);
        assert_eq!(
            located.path,
            "spec.policy-templates[0].objectDefinition.spec.object-templates[0]\
             .objectDefinition.data.value"
        );
        assert_eq!(located.at.to_string(), "policy.yaml:18:19");
        // Without a line in the message, the template itself.
        let located = locate(&document.value, &written, 0, "no line");
        assert_eq!(located.path, "spec.policy-templates[0].objectDefinition");
        assert_eq!(located.at.to_string(), "policy.yaml:6:7");
    }
}
