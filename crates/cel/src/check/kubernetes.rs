//! Declarations of the Kubernetes CEL libraries (`k8s.io/apiserver/pkg/cel/library`)
//! issue #3 lists: regex, URLs, IP addresses and CIDRs, lists and sets, with the
//! Kubernetes overload ids.

use super::decls::{CostHint, DeclError, Declarations, Overload};
use super::types::Type;

/// Name of the opaque type of `url(...)` values.
pub const URL_TYPE_NAME: &str = "kubernetes.URL";
/// Name of the opaque type of `ip(...)` values.
pub const IP_TYPE_NAME: &str = "net.IP";
/// Name of the opaque type of `cidr(...)` values.
pub const CIDR_TYPE_NAME: &str = "net.CIDR";

fn url() -> Type {
    Type::opaque(URL_TYPE_NAME, vec![])
}

fn ip() -> Type {
    Type::opaque(IP_TYPE_NAME, vec![])
}

fn cidr() -> Type {
    Type::opaque(CIDR_TYPE_NAME, vec![])
}

fn string_scan(arg: usize) -> CostHint {
    CostHint::Linear { arg, tenths_per_unit: 1 }
}

fn element_scan(arg: usize) -> CostHint {
    CostHint::Linear { arg, tenths_per_unit: 10 }
}

/// Adds every Kubernetes library below.
pub fn add_kubernetes_libraries(decls: &mut Declarations) -> Result<(), DeclError> {
    add_regex(decls)?;
    add_urls(decls)?;
    add_ip(decls)?;
    add_cidr(decls)?;
    add_lists(decls)?;
    add_sets(decls)
}

/// `find` and `findAll` on strings.
pub fn add_regex(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Int, String};
    decls.add_function(
        "find",
        [Overload::receiver("string_find_string", vec![String, String], String)
            .with_cost(string_scan(0))],
    )?;
    decls.add_function(
        "findAll",
        [
            Overload::receiver("string_find_all_string", vec![String, String], Type::list(String))
                .with_cost(string_scan(0)),
            Overload::receiver(
                "string_find_all_string_int",
                vec![String, String, Int],
                Type::list(String),
            )
            .with_cost(string_scan(0)),
        ],
    )
}

/// `url`, `isURL` and the `kubernetes.URL` accessors.
pub fn add_urls(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bool, String};
    decls.add_function(
        "url",
        [Overload::global("string_to_url", vec![String], url()).with_cost(string_scan(0))],
    )?;
    decls.add_function(
        "isURL",
        [Overload::global("is_url_string", vec![String], Bool).with_cost(string_scan(0))],
    )?;
    for (name, id) in [
        ("getScheme", "url_get_scheme"),
        ("getHost", "url_get_host"),
        ("getHostname", "url_get_hostname"),
        ("getPort", "url_get_port"),
        ("getEscapedPath", "url_get_escaped_path"),
    ] {
        decls.add_function(name, [Overload::receiver(id, vec![url()], String)])?;
    }
    decls.add_function(
        "getQuery",
        [Overload::receiver("url_get_query", vec![url()], Type::map(String, Type::list(String)))],
    )
}

/// `ip`, `isIP`, `ip.isCanonical`, `string(ip)` and the `net.IP` predicates.
pub fn add_ip(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bool, Int, String};
    // The type name as a value: `type(ip('1.2.3.4')) == net.IP`.
    decls.add_variable(IP_TYPE_NAME, Type::type_of(ip()))?;
    decls.add_function(
        "ip",
        [Overload::global("string_to_ip", vec![String], ip()).with_cost(string_scan(0))],
    )?;
    decls.add_function(
        "isIP",
        [Overload::global("is_ip", vec![String], Bool).with_cost(string_scan(0))],
    )?;
    decls.add_function(
        "ip.isCanonical",
        [Overload::global("ip_is_canonical", vec![String], Bool).with_cost(string_scan(0))],
    )?;
    decls.add_function("string", [Overload::global("ip_to_string", vec![ip()], String)])?;
    decls.add_function("family", [Overload::receiver("ip_family", vec![ip()], Int)])?;
    for (name, id) in [
        ("isUnspecified", "ip_is_unspecified"),
        ("isLoopback", "ip_is_loopback"),
        ("isLinkLocalMulticast", "ip_is_link_local_multicast"),
        ("isLinkLocalUnicast", "ip_is_link_local_unicast"),
        ("isGlobalUnicast", "ip_is_global_unicast"),
    ] {
        decls.add_function(name, [Overload::receiver(id, vec![ip()], Bool)])?;
    }
    Ok(())
}

/// `cidr`, `isCIDR`, `string(cidr)` and the `net.CIDR` methods.
pub fn add_cidr(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bool, Int, String};
    decls.add_variable(CIDR_TYPE_NAME, Type::type_of(cidr()))?;
    decls.add_function(
        "cidr",
        [Overload::global("string_to_cidr", vec![String], cidr()).with_cost(string_scan(0))],
    )?;
    decls.add_function(
        "isCIDR",
        [Overload::global("is_cidr", vec![String], Bool).with_cost(string_scan(0))],
    )?;
    decls.add_function("string", [Overload::global("cidr_to_string", vec![cidr()], String)])?;
    decls.add_function(
        "containsIP",
        [
            Overload::receiver("cidr_contains_ip_string", vec![cidr(), String], Bool),
            Overload::receiver("cidr_contains_ip_ip", vec![cidr(), ip()], Bool),
        ],
    )?;
    decls.add_function(
        "containsCIDR",
        [
            Overload::receiver("cidr_contains_cidr_string", vec![cidr(), String], Bool),
            Overload::receiver("cidr_contains_cidr", vec![cidr(), cidr()], Bool),
        ],
    )?;
    // `ip` also exists as a global conversion from string (see `add_ip`).
    decls.add_function("ip", [Overload::receiver("cidr_ip", vec![cidr()], ip())])?;
    decls.add_function("masked", [Overload::receiver("cidr_masked", vec![cidr()], cidr())])?;
    decls
        .add_function("prefixLength", [Overload::receiver("cidr_prefix_length", vec![cidr()], Int)])
}

/// `isSorted`, `sum`, `min`, `max`, `indexOf` and `lastIndexOf` on lists.
pub fn add_lists(decls: &mut Declarations) -> Result<(), DeclError> {
    let comparable = [
        ("int", Type::Int),
        ("uint", Type::Uint),
        ("double", Type::Double),
        ("bool", Type::Bool),
        ("duration", Type::Duration),
        ("timestamp", Type::Timestamp),
        ("string", Type::String),
        ("bytes", Type::Bytes),
    ];
    let summable = [
        ("int", Type::Int),
        ("uint", Type::Uint),
        ("double", Type::Double),
        ("duration", Type::Duration),
    ];
    decls.add_function(
        "isSorted",
        comparable.iter().map(|(name, ty)| {
            Overload::receiver(
                format!("list_{name}_is_sorted_bool"),
                vec![Type::list(ty.clone())],
                Type::Bool,
            )
            .with_cost(element_scan(0))
        }),
    )?;
    decls.add_function(
        "sum",
        summable.iter().map(|(name, ty)| {
            Overload::receiver(
                format!("list_{name}_sum_{name}"),
                vec![Type::list(ty.clone())],
                ty.clone(),
            )
            .with_cost(element_scan(0))
        }),
    )?;
    for function in ["min", "max"] {
        decls.add_function(
            function,
            comparable.iter().map(|(name, ty)| {
                Overload::receiver(
                    format!("list_{name}_{function}_{name}"),
                    vec![Type::list(ty.clone())],
                    ty.clone(),
                )
                .with_cost(element_scan(0))
            }),
        )?;
    }
    let a = || Type::param("A");
    // Joins the strings extension's `indexOf`/`lastIndexOf` on a list receiver.
    decls.add_function(
        "indexOf",
        [Overload::receiver("list_a_index_of_int", vec![Type::list(a()), a()], Type::Int)
            .with_cost(element_scan(0))],
    )?;
    decls.add_function(
        "lastIndexOf",
        [Overload::receiver("list_a_last_index_of_int", vec![Type::list(a()), a()], Type::Int)
            .with_cost(element_scan(0))],
    )
}

/// `sets.contains`, `sets.equivalent` and `sets.intersects`.
pub fn add_sets(decls: &mut Declarations) -> Result<(), DeclError> {
    let list = || Type::list(Type::param("T"));
    for (name, id) in [
        ("sets.contains", "list_sets_contains_list"),
        ("sets.equivalent", "list_sets_equivalent_list"),
        ("sets.intersects", "list_sets_intersects_list"),
    ] {
        decls.add_function(
            name,
            [Overload::global(id, vec![list(), list()], Type::Bool).with_cost(element_scan(0))],
        )?;
    }
    Ok(())
}
