//! The function map registers exactly sprig 3.3.0's names.

use std::collections::BTreeSet;

#[test]
fn registers_exactly_sprigs_names() {
    let funcs = certgate_sprig::functions();
    let got: BTreeSet<&str> = funcs.names().collect();
    let want: BTreeSet<&str> = certgate_sprig::SPRIG_NAMES.iter().copied().collect();
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    assert_eq!(certgate_sprig::SPRIG_NAMES.len(), 211);
    assert_eq!(want.len(), 211, "names are unique");
}

#[test]
fn ocm_sees_all_but_env_and_expandenv() {
    let available: Vec<&str> = certgate_sprig::SPRIG_NAMES
        .iter()
        .copied()
        .filter(|n| *n != "env" && *n != "expandenv")
        .collect();
    assert_eq!(available.len(), 209);
    for name in ["now", "randAlpha", "genSignedCert", "getHostByName", "fail", "sha512sum", "hello"]
    {
        assert!(available.contains(&name), "{name}");
    }
}
