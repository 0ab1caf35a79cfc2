//! Per-execution state of template functions. The engine calls functions synchronously on
//! the calling thread, so the current session lives in a thread-local for the duration of
//! [`run_in_session`]; functions reach it with [`current`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use certgate_gotemplate::FuncError;

use crate::access::{
    Access, DEFAULT_MAX_LIST_ITEMS, ErrorClass, Found, LookupError, ObjectReader, Query, ReadSet,
    lookup,
};
use crate::encryption::EncryptionKeys;

/// What template functions may use during one resolution.
pub struct Session {
    pub reader: Arc<dyn ObjectReader>,
    pub access: Access,
    /// Set when the template uses encryption (§8): `fromSecret` and `copySecretData`
    /// encrypt their values and `protect` works.
    pub encryption: Option<EncryptionKeys>,
    /// Lists longer than this fail (see [`DEFAULT_MAX_LIST_ITEMS`]).
    pub max_list_items: usize,
}

impl Session {
    pub fn new(reader: Arc<dyn ObjectReader>, access: Access) -> Self {
        Session { reader, access, encryption: None, max_list_items: DEFAULT_MAX_LIST_ITEMS }
    }

    pub fn with_encryption(mut self, keys: EncryptionKeys) -> Self {
        self.encryption = Some(keys);
        self
    }
}

/// What one session did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionOutcome {
    /// Every read made, including reads of missing objects and denied reads.
    pub reads: ReadSet,
    /// Values encrypted by `fromSecret`, `copySecretData` and `protect`.
    pub encrypted_values: usize,
    /// A Secret was read into the output (upstream's `HasSensitiveData`).
    pub has_sensitive_data: bool,
    /// The class of the last read error a function returned, so the caller can decide
    /// between retrying, requeueing on RBAC changes and recording the error (§4). Reads
    /// whose "not found" the function tolerates (`lookup`) are not errors.
    pub read_error: Option<ErrorClass>,
}

/// The active session of this thread.
pub struct Frame {
    session: Session,
    outcome: RefCell<SessionOutcome>,
}

impl Frame {
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The lookup routine with this session's reader and access, recording the read.
    pub fn lookup(&self, query: &Query<'_>) -> Result<Found, LookupError> {
        let result = {
            let mut outcome = self.outcome.borrow_mut();
            lookup(
                self.session.reader.as_ref(),
                &self.session.access,
                &mut outcome.reads,
                query,
                self.session.max_list_items,
            )
        };
        if let Some(error) = result.as_ref().err().filter(|e| !e.is_not_found()) {
            self.outcome.borrow_mut().read_error = Some(error.class());
        }
        result
    }

    /// [`Self::lookup`] does not count "not found" as a failure because `lookup` tolerates
    /// it; functions that report it as an error call this.
    pub fn record_not_found_failure(&self) {
        self.outcome.borrow_mut().read_error = Some(ErrorClass::Other);
    }

    pub fn count_encrypted(&self, values: usize) {
        self.outcome.borrow_mut().encrypted_values += values;
    }

    pub fn mark_sensitive(&self) {
        self.outcome.borrow_mut().has_sensitive_data = true;
    }
}

thread_local! {
    static STACK: RefCell<Vec<Rc<Frame>>> = const { RefCell::new(Vec::new()) };
}

/// Pops this guard's frame even when `f` panics, so a later execution never sees it.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        STACK.with(|stack| stack.borrow_mut().pop());
    }
}

/// Runs `f` with `session` as the current session of this thread and returns what it did.
/// Sessions nest: the previous one is current again afterwards.
pub fn run_in_session<R>(session: Session, f: impl FnOnce() -> R) -> (R, SessionOutcome) {
    let frame = Rc::new(Frame { session, outcome: RefCell::new(SessionOutcome::default()) });
    STACK.with(|stack| stack.borrow_mut().push(Rc::clone(&frame)));
    let guard = Guard;
    let result = f();
    drop(guard);
    let outcome = frame.outcome.take();
    (result, outcome)
}

/// The current session, for a function named `function`.
pub fn current(function: &str) -> Result<Rc<Frame>, FuncError> {
    STACK.with(|stack| stack.borrow().last().cloned()).ok_or_else(|| {
        FuncError::call(format!(
            "the {function} template function can only run while a hub template is being resolved"
        ))
    })
}
