use super::*;

const fn c(type_: &'static str, status: &'static str, reason: &'static str) -> Condition<'static> {
    Condition::new(type_, status, reason, "")
}

#[test]
fn approval_conditions_count_only_when_true() {
    for (conditions, denied, invalid, approved) in [
        (vec![], false, false, false),
        (vec![c("Approved", "True", "")], false, false, true),
        (vec![c("Approved", "False", "")], false, false, false),
        (vec![c("Approved", "Unknown", "")], false, false, false),
        (vec![c("Denied", "True", "")], true, false, false),
        (vec![c("Denied", "False", "")], false, false, false),
        (vec![c("InvalidRequest", "True", "")], false, true, false),
        (vec![c("InvalidRequest", "False", "")], false, false, false),
        // Any entry of the type with status True counts, not only the first.
        (vec![c("Denied", "False", ""), c("Denied", "True", "")], true, false, false),
        // Types and statuses are case-sensitive, as in Go.
        (vec![c("approved", "True", ""), c("Denied", "true", "")], false, false, false),
        (
            vec![
                c("Approved", "True", ""),
                c("Denied", "True", ""),
                c("InvalidRequest", "True", ""),
            ],
            true,
            true,
            true,
        ),
    ] {
        assert_eq!(is_denied(&conditions), denied, "{conditions:?}");
        assert_eq!(has_invalid_request(&conditions), invalid, "{conditions:?}");
        assert_eq!(is_approved(&conditions), approved, "{conditions:?}");
    }
}

#[test]
fn ready_reason_ranks_failed_issued_pending_denied_whatever_the_status() {
    for (conditions, expected) in [
        (vec![], None),
        (vec![c("Ready", "False", "Pending")], Some("Pending")),
        (vec![c("Ready", "True", "Issued")], Some("Issued")),
        (vec![c("Ready", "False", "Issued")], Some("Issued")),
        (vec![c("Ready", "True", "Failed")], Some("Failed")),
        (vec![c("Ready", "False", "Denied")], Some("Denied")),
        (vec![c("Ready", "False", "Something")], None),
        (vec![c("Ready", "False", "")], None),
        (vec![c("Approved", "True", "Failed")], None),
        (vec![c("Ready", "False", "Pending"), c("Ready", "True", "Issued")], Some("Issued")),
        (vec![c("Ready", "False", "Denied"), c("Ready", "False", "Failed")], Some("Failed")),
        (vec![c("Ready", "False", "Denied"), c("Ready", "False", "Pending")], Some("Pending")),
    ] {
        assert_eq!(ready_reason(&conditions), expected, "{conditions:?}");
    }
}

#[test]
fn first_is_the_first_of_the_type_whatever_its_status() {
    let conditions =
        [c("Ready", "False", "Pending"), c("Denied", "False", "a"), c("Denied", "True", "b")];
    assert_eq!(first(&conditions, "Denied").map(|c| c.reason), Some("a"));
    assert_eq!(first(&conditions, "Ready").map(|c| c.reason), Some("Pending"));
    assert_eq!(first(&conditions, "Approved"), None);
}
