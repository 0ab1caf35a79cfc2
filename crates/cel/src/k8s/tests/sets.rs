use crate::k8s::{contains, equivalent, intersects};

#[test]
fn contains_examples() {
    assert!(contains::<i64>(&[], &[]));
    assert!(!contains(&[], &[1]));
    assert!(contains(&[1, 2, 3, 4], &[2, 3]));
    assert!(contains(&[1, 2, 3], &[3, 2, 1]));
    assert!(contains(&[2], &[2, 2]));
    assert!(!contains(&[1, 2], &[2, 3]));
    assert!(contains(&["a", "b"], &["b"]));
}

#[test]
fn equivalent_examples() {
    assert!(equivalent::<i64>(&[], &[]));
    assert!(equivalent(&[1], &[1, 1]));
    assert!(equivalent(&[1, 2, 3], &[3, 2, 1]));
    assert!(!equivalent(&[1, 2], &[1]));
    assert!(!equivalent(&[1], &[]));
}

#[test]
fn intersects_examples() {
    assert!(!intersects(&[1], &[]));
    assert!(!intersects::<i64>(&[], &[1]));
    assert!(intersects(&[1], &[1, 2]));
    assert!(!intersects(&[1, 2], &[3, 4]));
    assert!(intersects(&[vec![1], vec![2, 3]], &[vec![1, 2], vec![2, 3]]));
    assert!(!intersects(&[vec![1], vec![2]], &[vec![1, 2]]));
}
