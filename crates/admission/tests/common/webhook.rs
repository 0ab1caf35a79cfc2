//! Driving [`Admission::handle`]: a tiny executor, fake SubjectAccessReview and discovery,
//! AdmissionReview bodies shaped like the API server's, and the answer decoded.

use std::collections::BTreeMap;
use std::future::{Future, ready};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use base64::Engine as _;
use certgate_admission::review::{Admission, Endpoint, Handled, Rejection};
use certgate_api::CertificateRequest;
use certgate_cel::PolicyCel;
use certgate_rbac::{
    AccessChecker, AccessDecision, AccessReview, AuthorizerError, CheckFuture, DiscoveryError,
    KindResolver, ResolveFuture, ResolvedKind,
};
use serde_json::{Value, json};

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to completion on this thread.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

/// An authorizer allowing `approve` on the listed signer names, failing on `failing`, and
/// recording every review it is asked.
#[derive(Clone, Default)]
pub struct FakeAccess {
    pub allowed: Vec<String>,
    pub failing: Option<String>,
    pub asked: Arc<Mutex<Vec<AccessReview>>>,
}

impl FakeAccess {
    pub fn allowing(names: &[&str]) -> Self {
        FakeAccess {
            allowed: names.iter().map(|n| (*n).to_owned()).collect(),
            ..Default::default()
        }
    }

    pub fn asked(&self) -> Vec<AccessReview> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The signer names asked about, in order.
    pub fn asked_names(&self) -> Vec<String> {
        self.asked().into_iter().map(|r| r.resource.name).collect()
    }
}

impl AccessChecker for FakeAccess {
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).push(review.clone());
        let name = &review.resource.name;
        let answer = if self.failing.as_ref() == Some(name) {
            Err(AuthorizerError("SubjectAccessReview: connection refused".to_owned()))
        } else {
            let allowed = self.allowed.contains(name);
            Ok(AccessDecision { allowed, reason: String::new() })
        };
        Box::pin(ready(answer))
    }
}

/// API discovery over a fixed table of `(group, kind)` → resource; `failing` answers every
/// lookup with that error.
#[derive(Clone, Default)]
pub struct FakeKinds {
    pub kinds: BTreeMap<(String, String), ResolvedKind>,
    pub failing: Option<String>,
    pub asked: Arc<Mutex<Vec<(String, String)>>>,
}

impl FakeKinds {
    /// cert-manager's two issuer kinds and one external, cluster-scoped issuer kind.
    pub fn cert_manager() -> Self {
        let mut kinds = BTreeMap::new();
        let mut add = |group: &str, kind: &str, plural: &str, namespaced: bool| {
            let resolved = ResolvedKind { plural: plural.to_owned(), namespaced };
            kinds.insert((group.to_owned(), kind.to_owned()), resolved);
        };
        add("cert-manager.io", "Issuer", "issuers", true);
        add("cert-manager.io", "ClusterIssuer", "clusterissuers", false);
        add("cas-issuer.jetstack.io", "GoogleCASClusterIssuer", "googlecasclusterissuers", false);
        FakeKinds { kinds, ..Default::default() }
    }

    pub fn asked(&self) -> Vec<(String, String)> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl KindResolver for FakeKinds {
    fn resolve<'a>(&'a self, group: &'a str, kind: &'a str) -> ResolveFuture<'a> {
        let key = (group.to_owned(), kind.to_owned());
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).push(key.clone());
        Box::pin(ready(match &self.failing {
            Some(message) => Err(DiscoveryError { message: message.clone() }),
            None => Ok(self.kinds.get(&key).cloned()),
        }))
    }
}

pub type TestAdmission = Admission<FakeAccess, FakeKinds>;

pub fn admission_with(access: FakeAccess, kinds: FakeKinds) -> TestAdmission {
    Admission::new(Arc::new(PolicyCel::default()), access, kinds)
}

/// An admission whose fakes allow everything and know cert-manager's kinds.
pub fn permissive() -> TestAdmission {
    admission_with(
        FakeAccess::allowing(&["issuers.cert-manager.io/*", "clusterissuers.cert-manager.io/*"]),
        FakeKinds::cert_manager(),
    )
}

pub const UID: &str = "705ab4f5-6393-11e8-b7cc-42010a800002";

/// A human user without extras.
pub fn alice() -> Value {
    json!({
        "username": "alice",
        "uid": "4bd9b4d0-5a07-4d6b-b5c8-4c5b0f8d2a11",
        "groups": ["developers", "system:authenticated"]
    })
}

/// cert-manager's controller ServiceAccount with a bound token, whose extras name the pod.
pub fn service_account() -> Value {
    json!({
        "username": "system:serviceaccount:cert-manager:cert-manager",
        "uid": "e2d4c6a8-1f3b-4d5e-9a7c-0b1d2e3f4a5b",
        "groups": [
            "system:serviceaccounts",
            "system:serviceaccounts:cert-manager",
            "system:authenticated"
        ],
        "extra": {
            "authentication.kubernetes.io/credential-id": ["JTI=7b3f"],
            "authentication.kubernetes.io/node-name": ["node-a"],
            "authentication.kubernetes.io/pod-name": ["cert-manager-7d9f-x2"],
            "authentication.kubernetes.io/pod-uid": ["0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"]
        }
    })
}

/// Kinds of resource a review is about.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    CertificateRequests,
    CertificateRequestsStatus,
    Policies,
}

impl Target {
    fn parts(self) -> (Value, Value, &'static str) {
        match self {
            Target::CertificateRequests | Target::CertificateRequestsStatus => (
                json!({"group": "cert-manager.io", "version": "v1", "kind": "CertificateRequest"}),
                json!({"group": "cert-manager.io", "version": "v1", "resource": "certificaterequests"}),
                if matches!(self, Target::CertificateRequestsStatus) { "status" } else { "" },
            ),
            Target::Policies => (
                json!({"group": "policy.cert-manager.io", "version": "v1alpha1", "kind": "CertificateRequestPolicy"}),
                json!({"group": "policy.cert-manager.io", "version": "v1alpha1", "resource": "certificaterequestpolicies"}),
                "",
            ),
        }
    }
}

/// An AdmissionReview as the API server sends it.
pub fn review(
    target: Target,
    operation: &str,
    user: Value,
    object: Value,
    old_object: Option<Value>,
) -> Value {
    let (kind, resource, sub_resource) = target.parts();
    let name = object.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    let namespace = object.pointer("/metadata/namespace").cloned();
    let options_kind = match operation {
        "CREATE" => "CreateOptions",
        "UPDATE" => "UpdateOptions",
        _ => "DeleteOptions",
    };
    let mut request = json!({
        "uid": UID,
        "kind": kind,
        "resource": resource,
        "requestKind": kind,
        "requestResource": resource,
        "name": name,
        "operation": operation,
        "userInfo": user,
        "object": object,
        "oldObject": old_object,
        "dryRun": false,
        "options": {"kind": options_kind, "apiVersion": "meta.k8s.io/v1"}
    });
    if let Some(map) = request.as_object_mut() {
        if !sub_resource.is_empty() {
            map.insert("subResource".to_owned(), json!(sub_resource));
            map.insert("requestSubResource".to_owned(), json!(sub_resource));
        }
        if let Some(namespace) = namespace {
            map.insert("namespace".to_owned(), namespace);
        }
    }
    json!({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": request})
}

/// A CertificateRequest object as stored: typed fields plus the metadata the API server
/// fills in.
pub fn cr_object(cr: &CertificateRequest) -> Value {
    let mut value = serde_json::to_value(cr).unwrap();
    let metadata = json!({
        "name": "my-cr",
        "namespace": "my-ns",
        "uid": "9f1c2b3a-0000-4000-8000-000000000001",
        "creationTimestamp": "2026-11-20T10:00:00Z"
    });
    value["metadata"] = metadata;
    value
}

/// The decoded answer.
#[derive(Debug)]
pub struct Answer {
    pub handled: Handled,
    pub allowed: bool,
    pub code: Option<u64>,
    pub reason: Option<String>,
    pub message: Option<String>,
    /// The decoded JSON patch, if any.
    pub patch: Option<Value>,
    pub warnings: Vec<String>,
}

pub fn send(
    admission: &TestAdmission,
    endpoint: Endpoint,
    body: &[u8],
) -> Result<Answer, Rejection> {
    let handled = block_on(admission.handle(endpoint, body))?;
    let review: Value = serde_json::from_slice(&handled.body).unwrap();
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(review["kind"], "AdmissionReview");
    let response = &review["response"];
    let allowed = response["allowed"].as_bool().unwrap();
    assert_eq!(allowed, handled.allowed);
    let status = &response["status"];
    if allowed {
        assert!(status.is_null(), "allowed responses carry no status: {response}");
    } else {
        assert_eq!(status["status"], "Failure");
    }
    let patch = response["patch"].as_str().map(|patch| {
        assert_eq!(response["patchType"], "JSONPatch");
        let bytes = base64::engine::general_purpose::STANDARD.decode(patch).unwrap();
        serde_json::from_slice(&bytes).unwrap()
    });
    if patch.is_none() {
        assert!(response.get("patchType").is_none());
    }
    let warnings = response["warnings"]
        .as_array()
        .map(|w| w.iter().map(|w| w.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default();
    Ok(Answer {
        allowed,
        code: status["code"].as_u64(),
        reason: status["reason"].as_str().map(str::to_owned),
        message: status["message"].as_str().map(str::to_owned),
        patch,
        warnings,
        handled,
    })
}

/// Sends a review that must be answered (not rejected), checking the uid is echoed.
pub fn answer(admission: &TestAdmission, endpoint: Endpoint, review: &Value) -> Answer {
    let body = serde_json::to_vec(review).unwrap();
    let answer = send(admission, endpoint, &body).unwrap();
    let echoed: Value = serde_json::from_slice(&answer.handled.body).unwrap();
    assert_eq!(echoed["response"]["uid"], UID);
    answer
}

/// The denial message of a review that must be denied with 403 Forbidden.
pub fn forbidden(admission: &TestAdmission, endpoint: Endpoint, review: &Value) -> String {
    let answer = answer(admission, endpoint, review);
    assert!(!answer.allowed, "expected a denial");
    assert_eq!(answer.code, Some(403));
    assert_eq!(answer.reason.as_deref(), Some("Forbidden"));
    answer.message.unwrap_or_default()
}

/// Asserts a review is allowed without a patch.
pub fn assert_allowed(admission: &TestAdmission, endpoint: Endpoint, review: &Value) {
    let answer = answer(admission, endpoint, review);
    assert!(answer.allowed, "expected allowed, got {:?}", answer.message);
    assert_eq!(answer.patch, None);
}
