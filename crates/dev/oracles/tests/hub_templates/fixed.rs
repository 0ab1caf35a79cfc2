//! Every mismatch the generator found, with go-template-utils' answer as recorded from the
//! oracle, and the exceptions that remain (each with its reason).

use super::Outcome;

pub struct Fixed {
    pub name: &'static str,
    /// The policy template's raw JSON.
    pub template: &'static str,
    /// Upstream's resolved JSON (`Ok`) or error text (`Err`).
    pub want: Result<&'static str, &'static str>,
    /// Whether the cluster's labels were read (`.ManagedClusterLabels` set).
    pub labels: bool,
    /// Why certgate still differs, when it does: `goyaml: …`/`sprig: …` name the crate at cause.
    pub exception: Option<&'static str>,
}

impl Fixed {
    pub fn upstream(&self) -> Outcome {
        match self.want {
            Ok(json) => Outcome::Json(serde_json::from_str(json).expect("recorded JSON parses")),
            Err(text) => Outcome::Error(text.to_owned()),
        }
    }
}

pub const CASES: &[Fixed] = &[
    Fixed {
        name: "to_int_whole_value",
        template: r#"{"data":{"n":"{{hub \"42\" | toInt hub}}"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"n":42}}"##),
        exception: None,
    },
    Fixed {
        name: "to_int_block_scalar",
        template: r#"{"data":{"n":"{{hub \"42\" | toInt hub}}\n"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"n":42}}"##),
        exception: None,
    },
    Fixed {
        name: "to_int_raw_quoted",
        template: r#"{"raw":"spec:\n  replicas: '{{hub \"3\" | toInt hub}}'\n  name: x\n"}"#,
        labels: true,
        want: Ok(r##"{"raw":"spec:\n  replicas: 3\n  name: x\n"}"##),
        exception: None,
    },
    Fixed {
        name: "to_int_raw_unquoted",
        template: r#"{"raw":"spec:\n  replicas: {{hub \"3\" | toInt hub}}\n  name: x\n"}"#,
        labels: true,
        want: Ok(r##"{"raw":"spec:\n  replicas: 3name: x\n"}"##),
        exception: None,
    },
    Fixed {
        name: "to_int_raw_double_quoted",
        template: r#"{"raw":"spec:\n  replicas: \"{{hub \\\"3\\\" | toInt hub}}\"\n  name: x\n"}"#,
        labels: true,
        want: Err(
            r##"failed to parse the template JSON string {"raw":"spec:\n  replicas: \"{{hub \\\"3\\\" | toInt hub}}\"\n  name: x\n"}: template: tmpl:3: unexpected "\\" in command"##,
        ),
        exception: None,
    },
    Fixed {
        name: "to_int_list_item",
        template: r#"{"data":{"l":["{{hub \"3\" | toInt hub}}"]}}"#,
        labels: true,
        want: Ok(r##"{"data":{"l":["3"]}}"##),
        exception: None,
    },
    Fixed {
        name: "to_bool_and_literal",
        template: r#"{"data":{"b":"{{hub \"true\" | toBool hub}}","l":"{{hub \"[1, 2]\" | toLiteral hub}}"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"b":true,"l":[1,2]}}"##),
        exception: None,
    },
    Fixed {
        name: "indent_trailing_newline",
        template: r#"{"data":{"v":"{{hub \"a\\nb\\n\" | indent 2 hub}}\n"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"a\n      b\n"}}"##),
        exception: None,
    },
    Fixed {
        name: "autoindent_trailing_newline",
        template: r#"{"data":{"v":"first\n{{hub \"a\\nb\\n\" | autoindent hub}}\nlast\n"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"first\na\nb\nlast\n"}}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_autoindent_block",
        template: r#"{"data":{"v":"{{hub dict \"a\" \"1\" \"b\" (list 1 2) | toYaml | autoindent hub}}\n","w":"x"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"a: \"1\"\nb:\n  - 1\n  - 2\n","w":"x"}}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_autoindent_block_chomped",
        template: r#"{"data":{"v":"{{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}","w":"x"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"a: \"1\" b: \"2\"","w":"x"}}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_raw_next_line",
        template: r#"{"raw":"config: |\n  {{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}\nnext: y\n"}"#,
        labels: true,
        want: Ok(r##"{"raw":"config: |\n  a: \"1\"\n  b: \"2\"\nnext: y\n"}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_raw_chomped_next_line",
        template: r#"{"raw":"config: |-\n  {{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}\nnext: y\n"}"#,
        labels: true,
        want: Ok(r##"{"raw":"config: |-\n  a: \"1\"\n  b: \"2\"\nnext: y\n"}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_raw_map_value",
        template: r#"{"raw":"spec:\n  labels:\n    {{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}\n  next: y\n"}"#,
        labels: true,
        want: Ok(r##"{"raw":"spec:\n  labels:\n    a: \"1\"\n    b: \"2\"\n  next: y\n"}"##),
        exception: None,
    },
    Fixed {
        name: "multi_line_value_in_folded_place",
        template: r#"{"data":{"v":"{{hub \"a\\nb\" hub}}"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"a b"}}"##),
        exception: None,
    },
    Fixed {
        name: "multi_line_value_in_block",
        template: r#"{"data":{"v":"x\n{{hub \"a\\nb\" hub}}\ny"}}"#,
        labels: true,
        want: Err(
            r##"failed to convert the resolved template to JSON: yaml: line 5: could not find expected ':'"##,
        ),
        exception: None,
    },
    Fixed {
        name: "block_scalar_keep",
        template: r#"{"data":{"v":"x\n{{hub \"a\" hub}}\n\n"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"x\na\n\n"}}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_list_in_raw",
        template: r#"{"raw":"items:\n{{hub list \"a\" \"b\" | toYaml hub}}\nnext: 1\n"}"#,
        labels: true,
        want: Err(
            r##"failed to convert the resolved template to JSON: yaml: line 5: mapping values are not allowed in this context"##,
        ),
        exception: None,
    },
    Fixed {
        name: "nil_labels_print",
        template: r#"{"data":{"v":"{{hub .ManagedClusterLabels hub}}","w":"{{hub if .ManagedClusterLabels hub}}yes{{hub else hub}}no{{hub end hub}}"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":"map[env:prod region:eu]","w":"yes"}}"##),
        exception: None,
    },
    Fixed {
        name: "labels_not_read_are_a_nil_map",
        template: r##"{"n":"{{hub len .ManagedClusterLabels hub}}","v":"{{hub .ManagedClusterLabels hub}}","w":"{{hub if .ManagedClusterLabels hub}}yes{{hub else hub}}no{{hub end hub}}"}"##,
        labels: false,
        want: Ok(r##"{"n":"0","v":"map[]","w":"no"}"##),
        exception: None,
    },
    Fixed {
        name: "missing_label_key",
        template: r#"{"data":{"v":"{{hub index .ManagedClusterLabels \"zone\" hub}}"}}"#,
        labels: true,
        want: Ok(r##"{"data":{"v":""}}"##),
        exception: Some(LABEL_NIL),
    },
    Fixed {
        name: "labels_not_read",
        template: r#"{"data":{"v":"{{hub .ManagedClusterName hub}}","w":"{{hub .PolicyMetadata.labels.app hub}}"}}"#,
        labels: false,
        want: Ok(r##"{"data":{"v":"cluster-1","w":"web"}}"##),
        exception: None,
    },
    Fixed {
        name: "leading_line_break_in_value",
        template: r##"{"data":{"fnl":"\n{{hub \"yro\" | fromYaml | toYaml | indent 5 hub}}true"}}"##,
        labels: true,
        want: Ok(r##"{"data":{"fnl":"yrotrue"}}"##),
        exception: None,
    },
    Fixed {
        name: "to_yaml_only_line_break",
        template: r##"{"data":{"h":"{{hub dict \"a\" \"\\n\" \"b\" \"eq\" | toYaml | indent 4 | trim hub}}"}}"##,
        labels: true,
        want: Ok(r##"{"data":{"h":"a: |2+ b: eq"}}"##),
        exception: None,
    },
    Fixed {
        name: "multiline_double_quoted_scalar",
        template: r##"{"data":{"grf":"{{hub- \"'\\n\\nb-'##-'9\" -hub}}","mwd":"{{hub \"7\" | toInt hub}}"}}"##,
        labels: true,
        want: Ok(r##"{"data":{"grf":"'\nb-'##-'9","mwd":7}}"##),
        exception: None,
    },
    Fixed {
        name: "goyaml_hash_in_multiline_single_quoted",
        template: r##"{"data":{"jocr":"{{hub dict \"a\" \"g\" \"b\" \"#w# xi\" | toYaml hub}}"}}"##,
        labels: true,
        want: Ok(r##"{"data":{"jocr":"a: g b: "}}"##),
        exception: None,
    },
    Fixed {
        name: "goyaml_decode_error_text",
        template: r#"{"raw":"items:\n{{hub list \"a\" \"b\" | toYaml hub}}\nnext: 1\n"}"#,
        labels: true,
        want: Err(
            r##"failed to convert the resolved template to JSON: yaml: line 5: mapping values are not allowed in this context"##,
        ),
        exception: None,
    },
    Fixed {
        name: "gotemplate_lexer_text",
        template: r##"{"data":{"tsi":"7-1\n{{hub \" \" | toYaml hub}}\n \n"}}"##,
        labels: true,
        want: Err(
            r##"failed to parse the template JSON string {"data":{"tsi":"7-1\n{{hub \" \" | toYaml hub}}\n \n"}}: template: tmpl:2: unexpected "\\" in command"##,
        ),
        exception: None,
    },
    Fixed {
        name: "gotemplate_lexer_quote_text",
        template: r##"{"data":{"s":" ' '#1r'o\n{{hub list \"gexc\" 7 | toYaml hub}}\nkvlqm"}}"##,
        labels: true,
        want: Err(
            r##"failed to convert the resolved template to JSON: yaml: line 4: did not find expected key"##,
        ),
        exception: None,
    },
    Fixed {
        name: "gotemplate_index_text",
        template: r#"{"data":{"v":"{{hub index .PolicyMetadata 1 hub}}"}}"#,
        labels: true,
        want: Err(
            r##"failed to resolve the template {"data":{"v":"{{hub index .PolicyMetadata 1 hub}}"}}: template: tmpl:2:12: executing "tmpl" at <index .PolicyMetadata 1>: error calling index: value has type int; should be string"##,
        ),
        // Fixed in certgate-gotemplate (engine/builtin_errors.rs).
        exception: None,
    },
    Fixed {
        name: "denylisted_env",
        template: r#"{"data":{"v":"{{hub env \"HOME\" hub}}"}}"#,
        labels: true,
        want: Err(
            r##"failed to resolve the template {"data":{"v":"{{hub env \"HOME\" hub}}"}}: template: tmpl:2:12: executing "tmpl" at <env "HOME">: error calling env: use of denylisted template function: function 'env' is considered a security risk"##,
        ),
        exception: None,
    },
    Fixed {
        name: "denylisted_by_flag",
        template: r#"{"data":{"v":"{{hub deny \"x\" hub}}"}}"#,
        labels: true,
        want: Err(
            r##"failed to resolve the template {"data":{"v":"{{hub deny \"x\" hub}}"}}: template: tmpl:2:12: executing "tmpl" at <deny "x">: error calling deny: use of denylisted template function: function 'deny' is not allowed"##,
        ),
        exception: None,
    },
    Fixed {
        name: "autoindent_not_rewritten",
        template: r#"{"data":{"v":"{{hub \"x\" | autoindent | upper hub}}"}}"#,
        labels: true,
        want: Err(
            r##"failed to resolve the template {"data":{"v":"{{hub \"x\" | autoindent | upper hub}}"}}: template: tmpl:2:18: executing "tmpl" at <autoindent>: error calling autoindent: an unexpected error occurred where autoindent could not be processed"##,
        ),
        exception: None,
    },
    Fixed {
        name: "to_literal_new_line",
        template: r#"{"data":{"v":"{{hub \"a\\nb\" | toLiteral hub}}"}}"#,
        labels: true,
        want: Err(
            r##"failed to resolve the template {"data":{"v":"{{hub \"a\\nb\" | toLiteral hub}}"}}: template: tmpl:2:20: executing "tmpl" at <toLiteral>: error calling toLiteral: new lines are not allowed in the string passed to the toLiteral function"##,
        ),
        exception: None,
    },
];

/// certgate's `fromYaml` refused a mapping with a non-string key (see [`NON_STRING_KEY`]).
fn non_string_key(ours: &Outcome) -> bool {
    matches!(ours, Outcome::Error(a) if a.contains(
        "error calling fromYaml: json: unsupported type: map[interface {}]interface {}"
    ))
}

/// The exceptions that remain, by cause. Every one lies in a crate this test does not own;
/// the reasons name it so the owner can pick the class up.
/// The JSON -> YAML text differs (goyaml's emitter).
pub const EMITTER: &str = "goyaml: to_yaml writes strings with leading or only line breaks differently from yaml.v3's emitter (which drops a leading line break), so JSON -> YAML and toYaml outputs differ";
/// `.ManagedClusterLabels` is a typed map upstream.
pub const LABEL_NIL: &str = "gotemplate: maps carry no element type, so `index` of a key missing from a `map[string]string` context field (`.ManagedClusterLabels` of a cluster without that label) gives nil (`<no value>`, or `invalid value; expected string` when piped on) where Go gives \"\"";
/// Open deviation (issue #19): certgate's values are JSON, so a YAML mapping with a
/// non-string key cannot be held.
pub const NON_STRING_KEY: &str = "goyaml: fromYaml of a mapping with a non-string key (`9:`) fails in certgate (`json: unsupported type: map[interface {}]interface {}`), where go-template-utils keeps Go's map[interface {}]interface {} and goes on: open deviation, issue #19";
/// Where upstream's pipeline and certgate's part ways, for one case.
pub struct Stages {
    /// Both JSON -> YAML conversions wrote the same text.
    pub same_yaml: bool,
    /// The typed-value and autoindent rewrites produced the same text (the template parsed).
    pub same_text: bool,
}

/// The listed exception a generated mismatch falls under, if any. A case is attributed to
/// another crate only when the stages show it: the JSON -> YAML text differs (goyaml's
/// emitter). certgate-goyaml's decoder is a port of libyaml and yaml.v3's decoder, so every
/// other difference (a YAML text decoded or refused differently, a `fromYaml` failing
/// elsewhere) fails the test, except the open non-string-key class.
pub fn excepted(stages: &Stages, ours: &Outcome, _theirs: &Outcome) -> Option<&'static str> {
    if !stages.same_yaml {
        return Some(EMITTER);
    }
    if !stages.same_text {
        return None;
    }
    non_string_key(ours).then_some(NON_STRING_KEY)
}
