//! One resolver per configuration (delimiters, denylist): parses each distinct policy template
//! once and executes it for every managed cluster.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use certgate_gotemplate::{Engine, Limits, Parsed};

use super::context::HubContext;
use super::errors::{ResolveError, ResolveErrorKind};
use super::preprocess::Preprocessor;
use crate::access::{Access, ErrorClass, ObjectReader, ReadSet};
use crate::encryption::EncryptionKeys;
use crate::functions::{FunctionConfig, hub_functions};
use crate::session::{Session, run_in_session};

/// The propagator's template configuration (§7.1).
#[derive(Clone, Debug)]
pub struct ResolverConfig {
    pub start_delim: String,
    pub stop_delim: String,
    pub additional_indentation: usize,
    /// `--template-function-denylist`; `env` and `expandenv` are always denied.
    pub denylist: Vec<String>,
    pub limits: Limits,
    /// Distinct parsed templates kept; the cache is emptied when full.
    pub max_cached_templates: usize,
}

impl Default for ResolverConfig {
    fn default() -> Self {
        Self {
            start_delim: "{{hub".to_owned(),
            stop_delim: "hub}}".to_owned(),
            additional_indentation: 8,
            denylist: Vec::new(),
            limits: Limits::default(),
            max_cached_templates: 4096,
        }
    }
}

/// One resolution's inputs besides the template.
#[derive(Clone)]
pub struct ResolveRequest {
    pub context: HubContext,
    pub reader: Arc<dyn ObjectReader>,
    pub access: Access,
    /// Set when the template uses encryption (§8): `fromSecret`, `copySecretData` and
    /// `protect` then produce `$ocm_encrypted:` values.
    pub encryption: Option<EncryptionKeys>,
}

/// The resolved template (or why it could not be resolved) and the objects read.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub result: Result<serde_json::Value, ResolveError>,
    pub reads: ReadSet,
}

/// A template after JSON → YAML and the rewrites: parsed, or the error upstream reports for it
/// (the same for every cluster, so cached too).
enum Prepared {
    Parsed(Parsed),
    Failed(String),
}

pub struct HubResolver {
    config: ResolverConfig,
    plain: Engine,
    protected: Engine,
    preprocessor: Preprocessor,
    /// Prepared templates by raw JSON, one map per encryption mode (looked up without
    /// allocating a key: this runs once per cluster and template).
    cache: Mutex<[HashMap<String, Arc<Prepared>>; 2]>,
}

impl std::fmt::Debug for HubResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubResolver").field("config", &self.config).finish_non_exhaustive()
    }
}

impl HubResolver {
    /// Fails only when one delimiter is set without the other.
    pub fn new(config: ResolverConfig) -> Result<Self, ResolveError> {
        let engine = |encryption_enabled: bool| {
            let funcs = hub_functions(&FunctionConfig {
                additional_indentation: config.additional_indentation,
                denylist: config.denylist.clone(),
                encryption_enabled,
            });
            Engine::new("tmpl", funcs)
                .delims(&config.start_delim, &config.stop_delim)
                .map(|e| e.limits(config.limits))
                .map_err(|e| ResolveError::permanent(e.to_string()))
        };
        let (start, stop) = if config.start_delim.is_empty() {
            ("{{", "}}")
        } else {
            (config.start_delim.as_str(), config.stop_delim.as_str())
        };
        Ok(Self {
            plain: engine(false)?,
            protected: engine(true)?,
            preprocessor: Preprocessor::new(start, stop, config.additional_indentation)
                .map_err(|e| ResolveError::permanent(format!("invalid delimiters: {e}")))?,
            cache: Mutex::new([HashMap::new(), HashMap::new()]),
            config,
        })
    }

    pub fn config(&self) -> &ResolverConfig {
        &self.config
    }

    /// Resolves one policy template (`raw` is its `objectDefinition` as stored, in JSON). The
    /// objects read are reported whether or not resolution succeeded: a change to one of them
    /// may fix the error.
    pub fn resolve(&self, raw: &str, request: &ResolveRequest) -> Resolved {
        let prepared = self.prepare(raw, request.encryption.is_some());
        let parsed = match prepared.as_ref() {
            Prepared::Parsed(parsed) => parsed,
            Prepared::Failed(message) => {
                return Resolved {
                    result: Err(ResolveError::permanent(message.clone())),
                    reads: ReadSet::new(),
                };
            }
        };
        let mut session = Session::new(request.reader.clone(), request.access.clone());
        session.encryption = request.encryption.clone();
        let data = request.context.to_value();
        let (output, outcome) = run_in_session(session, || parsed.execute(&data));
        let result = match output {
            Err(e) => Err(ResolveError {
                message: format!("failed to resolve the template {raw}: {e}"),
                kind: match outcome.read_error {
                    Some(ErrorClass::Retryable) => ResolveErrorKind::Retryable,
                    Some(ErrorClass::AccessDenied) => ResolveErrorKind::Forbidden,
                    Some(ErrorClass::Other) | None => ResolveErrorKind::Permanent,
                },
            }),
            Ok(output) => certgate_goyaml::from_yaml(&output).map_err(|e| {
                ResolveError::permanent(format!(
                    "failed to convert the resolved template to JSON: {e}"
                ))
            }),
        };
        Resolved { result, reads: outcome.reads }
    }

    fn prepare(&self, raw: &str, encryption: bool) -> Arc<Prepared> {
        let mode = usize::from(encryption);
        if let Some(hit) = self.lock_cache()[mode].get(raw) {
            return hit.clone();
        }
        let prepared = Arc::new(self.prepare_uncached(raw, encryption));
        let mut cache = self.lock_cache();
        if cache[mode].len() >= self.config.max_cached_templates {
            cache[mode].clear();
        }
        cache[mode].insert(raw.to_owned(), prepared.clone());
        prepared
    }

    fn prepare_uncached(&self, raw: &str, encryption: bool) -> Prepared {
        let yaml = match certgate_goyaml::from_yaml(raw) {
            Ok(json) => certgate_goyaml::to_yaml(&json),
            Err(e) => {
                return Prepared::Failed(format!(
                    "failed to convert the policy template to YAML: {e}"
                ));
            }
        };
        let typed = self.preprocessor.typed_values(&yaml);
        let text = self.preprocessor.autoindent(&typed);
        let engine = if encryption { &self.protected } else { &self.plain };
        match engine.parse(&text) {
            Ok(parsed) => Prepared::Parsed(parsed),
            Err(e) => {
                Prepared::Failed(format!("failed to parse the template JSON string {raw}: {e}"))
            }
        }
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, [HashMap<String, Arc<Prepared>>; 2]> {
        // A poisoned cache only means another resolution panicked mid-insert; the map itself is
        // still consistent (inserts are single operations).
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
