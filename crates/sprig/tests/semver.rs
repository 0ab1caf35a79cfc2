//! semver and semverCompare, table style.
mod common;
use common::*;

#[test]
fn versions() {
    let v = ok("semver", &[s("v1.2.3-beta.1+build.5")]);
    assert_eq!(
        v,
        d(&[
            ("Major", certgate_gotemplate::Value::Uint(1)),
            ("Metadata", s("build.5")),
            ("Minor", certgate_gotemplate::Value::Uint(2)),
            ("Original", s("v1.2.3-beta.1+build.5")),
            ("Patch", certgate_gotemplate::Value::Uint(3)),
            ("Prerelease", s("beta.1")),
        ])
    );
    let v = ok("semver", &[s("4.10")]);
    assert_eq!(v.field("Minor"), Some(&certgate_gotemplate::Value::Uint(10)));
    assert_eq!(v.field("Patch"), Some(&certgate_gotemplate::Value::Uint(0)));
    err_table(&[
        ("semver", vec![s("1.2.x")], "invalid semantic version"),
        ("semver", vec![s("")], "invalid semantic version"),
        ("semver", vec![s("1.2.3.4")], "invalid semantic version"),
        ("semver", vec![s("1.2.3-01")], "Version segment starts with 0"),
    ]);
}

#[test]
fn constraints() {
    let rows: &[(&str, &str, bool)] = &[
        ("^1.2.0", "1.2.3", true),
        ("^1.2.0", "2.0.0", false),
        ("^0.2.3", "0.2.9", true),
        ("^0.2.3", "0.3.0", false),
        ("^0.0.3", "0.0.4", false),
        ("~1.2.3", "1.2.9", true),
        ("~1.2.3", "1.3.0", false),
        ("~1", "1.9.0", true),
        (">= 1.2, < 3.0.0", "2.5.0", true),
        (">=1.2 <3", "3.0.0", false),
        ("1.2.x", "1.2.7", true),
        ("1.2.x", "1.3.0", false),
        ("*", "4.5.6", true),
        ("!=1.2.3", "1.2.3", false),
        ("=1.2.3", "1.2.3", true),
        ("1.2 - 1.4.5", "1.4.5", true),
        ("1.2 - 1.4.5", "1.4.6", false),
        ("<1.0.0 || >=2.0.0", "2.1.0", true),
        ("<1.0.0 || >=2.0.0", "1.5.0", false),
        (">1.0.0", "1.1.0-beta", false),
        (">1.0.0-alpha", "1.0.0-beta", true),
        ("<=1.2.x", "1.2.9", true),
        (">1.2.x", "1.3.0", true),
        (">1.2.x", "1.2.9", false),
    ];
    for (c, v, want) in rows {
        assert_eq!(ok("semverCompare", &[s(c), s(v)]), b(*want), "{c} {v}");
    }
    err_table(&[
        ("semverCompare", vec![s(">= foo"), s("1.0.0")], "improper constraint: \">=foo\""),
        ("semverCompare", vec![s("^1"), s("x")], "invalid semantic version"),
        ("semverCompare", vec![s(""), s("1.0.0")], "improper constraint: \"\""),
    ]);
}
