use crate::k8s::{ListError, index_of, is_sorted, last_index_of, max, min, sum};

#[test]
fn is_sorted_examples() {
    assert!(is_sorted(&[1, 2, 3]));
    assert!(is_sorted(&["a", "b", "b", "c"]));
    assert!(!is_sorted(&[2.0, 1.0]));
    assert!(is_sorted(&[1]));
    assert!(is_sorted::<i64>(&[]));
    assert!(!is_sorted(&[1, 3, 2]));
    assert!(is_sorted(&[false, true]));
    assert!(!is_sorted(&[true, false]));
    // NaN compares as neither smaller nor greater, so it never breaks the order.
    assert!(is_sorted(&[2.0, f64::NAN, 1.0]));
}

#[test]
fn sum_examples_and_overflow() {
    assert_eq!(sum(&[1i64, 3]), Ok(4));
    assert_eq!(sum(&[1.0f64, 3.0]), Ok(4.0));
    assert_eq!(sum::<i64>(&[]), Ok(0));
    assert_eq!(sum::<u64>(&[]), Ok(0));
    assert_eq!(sum::<f64>(&[]), Ok(0.0));
    assert_eq!(sum(&[2u64, 5]), Ok(7));
    assert_eq!(sum(&[-5i64, 3]), Ok(-2));
    assert_eq!(sum(&[i64::MAX, 1]), Err(ListError::IntOverflow));
    assert_eq!(sum(&[i64::MIN, -1]), Err(ListError::IntOverflow));
    assert_eq!(sum(&[u64::MAX, 1]), Err(ListError::UintOverflow));
    assert_eq!(ListError::IntOverflow.to_string(), "integer overflow");
    assert_eq!(ListError::UintOverflow.to_string(), "unsigned integer overflow");
    assert_eq!(sum(&[f64::MAX, f64::MAX]), Ok(f64::INFINITY));
}

#[test]
fn min_max_examples() {
    assert_eq!(min(&[1, 3]), Ok(1));
    assert_eq!(max(&[1, 3]), Ok(3));
    assert_eq!(min(&[1]), Ok(1));
    assert_eq!(min(&[3, 1, 2]), Ok(1));
    assert_eq!(max(&[3, 1, 2]), Ok(3));
    assert_eq!(min(&["b", "a", "c"]), Ok("a"));
    assert_eq!(max(&[b"a".to_vec(), b"b".to_vec()]), Ok(b"b".to_vec()));
    let empty: [i64; 0] = [];
    let min_err = min(&empty).expect_err("empty");
    assert_eq!(min_err.to_string(), "min called on empty list");
    let max_err = max(&empty).expect_err("empty");
    assert_eq!(max_err.to_string(), "max called on empty list");
}

#[test]
fn min_max_keep_the_first_of_equal_or_incomparable_elements() {
    // Elements equal by comparison but distinguishable: the first one wins.
    #[derive(Clone, Debug, PartialEq)]
    struct Tagged(i64, &'static str);
    impl PartialOrd for Tagged {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            self.0.partial_cmp(&other.0)
        }
    }
    let list = [Tagged(2, "a"), Tagged(1, "b"), Tagged(1, "c"), Tagged(2, "d")];
    assert_eq!(min(&list), Ok(Tagged(1, "b")));
    assert_eq!(max(&list), Ok(Tagged(2, "a")));
    assert!(min(&[f64::NAN, 1.0]).is_ok_and(f64::is_nan));
    assert_eq!(min(&[1.0, f64::NAN, 0.5]), Ok(0.5));
}

#[test]
fn index_of_examples() {
    assert_eq!(index_of(&[1, 2, 2, 3], &2), 1);
    assert_eq!(last_index_of(&["a", "b", "b", "c"], &"b"), 2);
    assert_eq!(index_of(&[1.0], &1.1), -1);
    assert_eq!(index_of::<&str>(&[], &"string"), -1);
    assert_eq!(last_index_of::<&str>(&[], &"string"), -1);
    assert_eq!(index_of(&[1, 2, 2, 3], &3), 3);
    assert_eq!(last_index_of(&[1, 2, 2, 3], &1), 0);
    assert_eq!(index_of(&[f64::NAN], &f64::NAN), -1);
}
