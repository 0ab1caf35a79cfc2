//! Bench inputs shaped like executed hub templates: Kubernetes objects rendered as
//! block-style YAML, mostly plain and single-quoted scalars, no anchors.

/// A ConfigurationPolicy wrapping a Deployment (about 60 lines): nested maps, a list of
/// maps, quoted and plain scalars, numbers and booleans.
pub const POLICY: &str = r#"apiVersion: policy.open-cluster-management.io/v1
kind: ConfigurationPolicy
metadata:
  name: web-frontend-deployment
  namespace: cluster-0042
  labels:
    app.kubernetes.io/managed-by: 'governance-policy-framework'
    policy.open-cluster-management.io/cluster-name: cluster-0042
spec:
  remediationAction: enforce
  severity: medium
  pruneObjectBehavior: DeleteIfCreated
  evaluationInterval:
    compliant: 10m
    noncompliant: 45s
  object-templates:
    - complianceType: musthave
      recordDiff: InStatus
      objectDefinition:
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web-frontend
          namespace: 'team-a'
          labels:
            app: web-frontend
            tier: 'frontend'
          annotations:
            deployment.kubernetes.io/revision: '7'
            owner: "platform-team@example.com"
        spec:
          replicas: 3
          revisionHistoryLimit: 10
          progressDeadlineSeconds: 600
          paused: false
          selector:
            matchLabels:
              app: web-frontend
          template:
            metadata:
              labels:
                app: web-frontend
            spec:
              serviceAccountName: web-frontend
              automountServiceAccountToken: false
              containers:
                - name: web
                  image: 'registry.example.com/team-a/web-frontend:v2.14.3'
                  imagePullPolicy: IfNotPresent
                  ports:
                    - containerPort: 8080
                      protocol: TCP
                      name: http
                  env:
                    - name: CLUSTER_NAME
                      value: 'cluster-0042'
                    - name: LOG_LEVEL
                      value: info
                    - name: CACHE_RATIO
                      value: "0.75"
                  resources:
                    limits:
                      cpu: 500m
                      memory: 512Mi
                    requests:
                      cpu: 0.25
                      memory: 256Mi
                  readinessProbe:
                    httpGet:
                      path: /healthz
                      port: 8080
                    initialDelaySeconds: 5
                    periodSeconds: 10
"#;

/// The same policy with a 20-line literal block scalar (a script in a container's args).
pub fn policy_with_block() -> String {
    let mut block = String::from("                  args:\n                    - |\n");
    for i in 0..20 {
        block.push_str(&format!(
            "                      echo \"step {i}: syncing shard {i} of cluster-0042\" && sleep 1\n"
        ));
    }
    POLICY.replacen(
        "                  imagePullPolicy",
        &(block + "                  imagePullPolicy"),
        1,
    )
}

/// A flat ConfigMap with 200 data keys, alternating plain and quoted values.
pub fn configmap_200() -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: feature-flags\n  namespace: team-a\ndata:\n",
    );
    for i in 0..200 {
        if i % 2 == 0 {
            text.push_str(&format!("  feature.example.com/flag-{i:03}: enabled-for-cluster-{i}\n"));
        } else {
            text.push_str(&format!("  feature.example.com/flag-{i:03}: '{i}'\n"));
        }
    }
    text
}
