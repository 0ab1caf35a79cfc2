//! Run-time cost as cel-go v0.31.0's actual cost tracker counts it, in the approver-policy
//! environment (`self: string`, `cr`), unset variables. Expected figures were read from
//! cel-go (`EvalDetails.ActualCost`) with approver-policy's options.

use crate::CrVariable;
use crate::environment::{BoundRequest, environment};

fn actual_cost(rule: &str) -> Result<u64, String> {
    let env = environment().map_err(|e| e.message)?;
    let program = env.env.compile(rule).map_err(|e| e.message)?;
    let values = env.bind("", &BoundRequest::new(&CrVariable::default()));
    program.eval_with_limit(&values, u64::MAX).map(|e| e.cost).map_err(|e| e.message)
}

/// (cel-go's actual cost, rule), every variable unset (`self` and every `cr` field empty).
const CEL_GO_COSTS: &[(u64, &str)] = &[
    (0, r#"true && false"#),
    (57, r#"[1,2].map(x, x)==[]"#),
    (49, r#"[1,2].map(x, x).size()==0"#),
    (40, r#"[1,2].filter(x, x>1).size()==0"#),
    (18, r#"[1,2].all(x, x>1)"#),
    (20, r#"[1,2].exists(x, x>0)"#),
    (20, r#"[1,2].exists_one(x, x>0)"#),
    (1, r#"'abc'.contains('b')"#),
    (6, r#"'abcdefghijklmnopqrstuvwxyz'.contains('bcdefghijklm')"#),
    (4, r#"cr.groups.size() == 0"#),
    (13, r#"[1,2][0] == 1"#),
    (33, r#"{'a': 1}['a'] == 1"#),
    (33, r#"{'a': 1}.a == 1"#),
    (2, r#"cr.name == 'abc'"#),
    (1, r#"self == ''"#),
    (3, r#"'abcdefghijklmnopqrstuvwxyz' == 'abcdefghijklmnopqrstuvwxyz'"#),
    (2, r#"'ééééééééééééééééééé' == 'ééééééééééééééééééé'"#),
    (2, r#"'abcdefghijklmnopqrstuvwxyz'.startsWith('abcdefghijklmnopq')"#),
    (2, r#"'abcdefghijklmnopqrstuvwxyz'.endsWith('abcdefghijklmnopq')"#),
    (8, r#"('abcdefghijklmnopqrstuvwxyz' + 'abcdefghijklmnopqrstuvwxyz').size() > 0"#),
    (6, r#"'abcdefghijklmnopqrstuvwxyz'.matches('^[a-z]+$')"#),
    (3, r#"self.matches('^[a-z]+$')"#),
    (3, r#"'abcdefghijklmnopqrstuvwxyz' < 'abcdefghijklmnopqrstuvwxyz'"#),
    (22, r#"1 in [1,2,3,4,5,6,7,8,9,10,11,12]"#),
    (31, r#"'a' in {'a': 1}"#),
    (2, r#"'a' in cr.groups"#),
    (30, r#"'abcdefghijklmnopqrstuvwxyz'.lowerAscii() == ''"#),
    (30, r#"'abcdefghijklmnopqrstuvwxyz'.upperAscii() == ''"#),
    (30, r#"'abcdefghijklmnopqrstuvwxyz'.trim() == ''"#),
    (30, r#"'abcdefghijklmnopqrstuvwxyz'.reverse() == ''"#),
    (27, r#"'abcdefghijklmnopqrstuvwxyz'.substring(3) == ''"#),
    (6, r#"'abcdefghijklmnopqrstuvwxyz'.substring(3, 5) == ''"#),
    (5, r#"'abcdefghijklmnopqrstuvwxyz'.charAt(3) == ''"#),
    (10, r#"'abcdefghijklmnopqrstuvwxyz'.indexOf('xyz') == 0"#),
    (10, r#"'abcdefghijklmnopqrstuvwxyz'.indexOf('xyz', 2) == 0"#),
    (10, r#"'abcdefghijklmnopqrstuvwxyz'.lastIndexOf('xyz') == 0"#),
    (31, r#"'abcdefghijklmnopqrstuvwxyz'.replace('a', 'bb') == ''"#),
    (31, r#"'abcdefghijklmnopqrstuvwxyz'.replace('a', 'bb', 1) == ''"#),
    (23, r#"'a,b,c,d,e,f,g,h'.split(',').size() == 0"#),
    (18, r#"'a,b,c,d,e,f,g,h'.split(',', 3).size() == 0"#),
    (21, r#"['abc', 'def', 'ghi'].join() == ''"#),
    (25, r#"['abc', 'def', 'ghi'].join('--') == ''"#),
    (3, r#"strings.quote('abcdefghijklmnopqrstuvwxyz') == ''"#),
    (11, r#"'%s-%d'.format(['abcdef', 12]) == ''"#),
    (1, r#"b'abc' == b'abc'"#),
    (3, r#"string(b'abcdefghijklmnopqrstuvwxyz') == ''"#),
    (3, r#"bytes('abcdefghijklmnopqrstuvwxyz') == b''"#),
    (2, r#"int('12') == 12"#),
    (1, r#"string(12) == ''"#),
    (2, r#"size('abc') == 3"#),
    (2, r#"'abc'.size() == 3"#),
    (2, r#"-(1) == -1"#),
    (1, r#"!true"#),
    (1, r#"true ? 1 == 1 : 2 == 2"#),
    (3, r#"self == '' ? cr.name == '' : cr.namespace == ''"#),
    (3, r#"(1 + 2) * 3 == 9"#),
    (32, r#"[1, 2] + [3] == [1, 2, 3]"#),
    (2, r#"has(cr.name)"#),
    (3, r#"cr.groups.exists(g, g == 'a')"#),
    (1, r#"isServiceAccount('system:serviceaccount:ns:sa')"#),
    (3, r#"serviceAccount('system:serviceaccount:ns:sa').getName() == 'sa'"#),
    (2, r#"dyn(1) == 1.0"#),
    (2, r#"dyn(1u) < 2"#),
    (2, r#"type(1) == int"#),
    (133, r#"[[1, 2], [3]].map(x, x.map(y, y * 2)).size() == 2"#),
    (57, r#"[1, 2, 3].map(x, x > 1, x * 2).size() == 2"#),
    (69, r#"{'a': 1, 'b': 2}.map(k, k).size() == 2"#),
    (39, r#"{'a': 1, 'b': 2}.all(k, k != '')"#),
    (92, r#"[1,2,3].filter(x, x > 1).map(x, x).size() == 2"#),
    (39, r#"[1,2].exists(x, x == 3) || [1].all(x, x == 1)"#),
    (2, r#"'é'.size() == 1"#),
    (1, r#"'éé'.contains('é')"#),
    (
        2,
        r#"'\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9' + 'a' == ''"#,
    ),
    (27, r#"[1,2].filter(x, x > 5).size() == 0"#),
    (46, r#"[1][0] == 1 && {'a': 1}['a'] == 1"#),
    (3, r#"cr.groups[0] == 'a' || true"#),
    (15, r#"[1,2][self.size()] == 1"#),
    (14, r#"[1,2][0 + 0] == 1"#),
    (47, r#"[[1,2]].map(x, x[0]).size() == 1"#),
    (49, r#"[[1,2]].map(x, x[self.size()]).size() == 1"#),
    (67, r#"[{'a': 1}].map(x, x.a).size() == 1"#),
    (98, r#"[{'a': {'b': 1}}].map(x, x.a.b).size() == 1"#),
    (64, r#"{'a': {'b': 1}}.a.b == 1"#),
    (64, r#"{'a': {'b': 1}}['a']['b'] == 1"#),
    (32, r#"has({'a': 1}.a)"#),
    (47, r#"[{'a': 1}].exists(x, has(x.a))"#),
    (33, r#"(self == '' ? {'a': 1} : {'a': 2}).a == 1"#),
    (2, r#"(self == '' ? cr.name : cr.namespace) == ''"#),
    (14, r#"['a', 'b'][0].size() == 1"#),
    (34, r#"dyn({'a': 1}).a == 1"#),
    (63, r#"[1,2,3].map(x, x)[1] == 2"#),
    (15, r#"cr.groups.map(g, g).size() == 0"#),
    (56, r#"[1,2,3].filter(x, x > 1)[0] == 2"#),
    (2, r#"'a' + 'b' == 'ab'"#),
    (24, r#"[1][0] == [1,2,3].size()"#),
    (12, r#"size([1,2]) == 2"#),
    (18, r#"[1,2,3].exists_one(x, x > 5)"#),
    (18, r#"[1,2,3].all(x, x > 5)"#),
    (29, r#"[1,2,3].exists(x, x > 5)"#),
    (60, r#"{'a': 1, 'b': 2}.filter(k, k == 'a').size() == 1"#),
    (44, r#"{'a': [1,2]}['a'][1] == 2"#),
    (3, r#"cr == cr"#),
    (4, r#"cr.groups == cr.groups"#),
    (1, r#"null == null"#),
    (1, r#"1.5 == 1.5"#),
];

#[test]
fn actual_cost_is_cel_go_s() {
    let mut differences = Vec::new();
    for (expected, rule) in CEL_GO_COSTS {
        match actual_cost(rule) {
            Ok(cost) if cost == *expected => {}
            other => differences.push(format!("{rule}: cel-go {expected}, certgate {other:?}")),
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// Two `map` pyramids under the limit alone: cel-go counts the initial `[]` and the
/// result read of every `map`, so together they exceed it (the long mode's find).
#[test]
fn joined_map_pyramids_exceed_the_limit_as_in_cel_go() {
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let pyramid = format!(
        "[1, 2].map(x, {ten}.map(y, {ten}.map(z, {ten}.map(w, {ten}.map(v, {ten}))))).size() > 0"
    );
    assert_eq!(actual_cost(&pyramid), Ok(513_349));
    let env = environment().expect("environment");
    let values = env.bind("", &BoundRequest::new(&CrVariable::default()));
    let both = env.env.compile(&format!("{pyramid} && {pyramid}")).expect("compiles");
    let err = both.eval_with_limit(&values, 1_000_000).expect_err("over the limit");
    assert_eq!(err.message, "operation cancelled: actual cost limit exceeded");
    // `||` stops after the first: within the limit, as in cel-go.
    let either = env.env.compile(&format!("{pyramid} || {pyramid}")).expect("compiles");
    assert_eq!(either.eval_with_limit(&values, 1_000_000).map(|e| e.cost), Ok(513_349));
}
