//! Validation of custom resources against the structural `openAPIV3Schema` of their
//! CustomResourceDefinition version, as the Kubernetes API server applies it: pruning of
//! unknown fields, types, required fields, enums and value bounds, reported as Kubernetes
//! field errors. Used by the sandbox API server (development and tests only).
