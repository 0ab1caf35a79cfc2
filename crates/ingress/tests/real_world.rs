//! Realistic HTTPProxy manifests (routes, includes, tcpproxy, passthrough) parse, round-trip and
//! get Contour's verdict.

mod common;

use certgate_ingress::HttpProxy;
use common::*;
use serde_json::Value;

const MANIFESTS: &str = r#"
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: root
  namespace: web
  labels: {app: shop}
  annotations: {projectcontour.io/ingress.class: contour}
spec:
  virtualhost:
    fqdn: shop.example.com
    corsPolicy:
      allowCredentials: true
      allowOrigin: ["*"]
      allowMethods: [GET, POST]
    rateLimitPolicy:
      local: {requests: 100, unit: minute, burst: 20}
  routes:
    - conditions: [{prefix: /api}, {header: {name: x-beta, present: true}}]
      services:
        - {name: api, port: 8080, weight: 90}
        - {name: api-canary, port: 8080, weight: 10}
      timeoutPolicy: {response: 30s, idle: 5m}
      retryPolicy: {count: 3, perTryTimeout: 150ms, retryOn: [5xx, reset]}
      requestHeadersPolicy:
        set: [{name: X-Shop, value: "1"}]
      enableWebsockets: true
    - services: [{name: frontend, port: 80}]
      loadBalancerPolicy: {strategy: Cookie}
  includes:
    - name: blog
      namespace: blog
      conditions: [{prefix: /blog}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: blog, namespace: blog}
spec:
  routes:
    - services: [{name: blog, port: 80}]
      pathRewritePolicy:
        replacePrefix: [{prefix: /blog, replacement: /}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: db, namespace: data}
spec:
  virtualhost:
    fqdn: db.example.com
    tls: {passthrough: true}
  tcpproxy:
    services: [{name: postgres, port: 5432}]
    healthCheckPolicy: {intervalSeconds: 10, timeoutSeconds: 2}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: orphan, namespace: web}
spec:
  routes: [{services: [{name: x, port: 80}]}]
"#;

#[test]
fn realistic_manifests() {
    let docs: Vec<Value> = serde_saphyr::from_str_multiple(MANIFESTS).unwrap();
    for doc in &docs {
        let proxy = HttpProxy::from_value(doc).unwrap();
        assert_eq!(&serde_json::to_value(&proxy).unwrap(), doc, "round trip");
    }
    let report = run(&docs);
    assert!(report.skipped.is_empty());
    assert_valid(result(&report, "web", "root"));
    assert_valid(result(&report, "blog", "blog"));
    let db = result(&report, "data", "db");
    assert_valid(db);
    assert!(db.envoy.is_null(), "passthrough programs no downstream TLS context");
    let orphan = result(&report, "web", "orphan");
    assert!(!orphan.valid);
    assert_eq!(orphan.status.current_status.as_deref(), Some("orphaned"));

    let root = HttpProxy::from_value(&docs[0]).unwrap();
    let routes = root.spec.routes.as_ref().unwrap();
    assert_eq!(routes[0].services.as_ref().unwrap()[1].name, "api-canary");
    assert_eq!(root.spec.includes.as_ref().unwrap()[0].namespace.as_deref(), Some("blog"));
}

#[test]
fn kubectl_list_output_is_flattened() {
    let docs: Vec<Value> = serde_saphyr::from_str_multiple(MANIFESTS).unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs});
    assert_eq!(run(&[list]).results.len(), 4);
}
