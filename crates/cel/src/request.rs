//! Binding of `self` and `cr` for one evaluation, borrowing the caller's data.
//!
//! Nothing is converted up front: `cr` is a view whose fields are looked up when a
//! rule selects them, so binding costs no allocation however large the request.

use crate::CrVariable;
use cel::ExecutionError;
use cel::common::traits::Indexer;
use cel::common::types::{CelList, CelString, STRING_TYPE, Type};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;

/// Name of the `cr` object type, as upstream declares it.
pub(crate) const TYPE_NAME: &str =
    "cm.io.policy.pkg.internal.approver.validation.CertificateRequest";
pub(crate) static REQUEST_TYPE: Type = Type::new_struct_type(TYPE_NAME);

/// The variable names of the environment.
pub(crate) const SELF: &str = "self";
pub(crate) const CR: &str = "cr";

/// The fields of `cr`, with their CEL types.
pub(crate) const FIELDS: [(&str, &str); 4] = [
    ("name", "string"),
    ("namespace", "string"),
    ("username", "string"),
    ("groups", "list(string)"),
];

/// The variables of one evaluation.
pub(crate) struct Bindings<'a> {
    this: CelString<'a>,
    cr: RequestView<'a>,
}

impl<'a> Bindings<'a> {
    pub(crate) fn new(self_value: &'a str, cr: &'a CrVariable) -> Self {
        Self { this: CelString::from(self_value), cr: RequestView(cr) }
    }
}

impl VariableResolver for Bindings<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        match variable {
            SELF => Some(CowVal::Borrowed(&self.this)),
            CR => Some(CowVal::Borrowed(&self.cr)),
            _ => None,
        }
    }
}

/// `cr`: a view of a [`CrVariable`] with upstream's object type.
#[derive(Clone, Copy, Debug)]
struct RequestView<'a>(&'a CrVariable);

impl<'a> RequestView<'a> {
    fn field<'v>(&self, name: &str) -> Option<Box<dyn Val + 'v>>
    where
        'a: 'v,
    {
        let request = self.0;
        let string = |s: &'a str| -> Box<dyn Val + 'v> { Box::new(CelString::from(s)) };
        match name {
            "name" => Some(string(&request.name)),
            "namespace" => Some(string(&request.namespace)),
            "username" => Some(string(&request.username)),
            "groups" => {
                let groups: Vec<Box<dyn Val + 'v>> =
                    request.groups.iter().map(|g| string(g)).collect();
                Some(Box::new(CelList::from(groups)))
            }
            _ => None,
        }
    }
}

impl Val for RequestView<'_> {
    fn get_type(&self) -> &Type {
        &REQUEST_TYPE
    }

    fn cel_type() -> &'static Type {
        &REQUEST_TYPE
    }

    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    /// Equal to another `cr` with equal fields.
    fn equals(&self, other: &dyn Val) -> bool {
        let Some(other) = other.as_indexer().filter(|_| *other.get_type() == REQUEST_TYPE) else {
            return false;
        };
        FIELDS.iter().all(|(name, _)| {
            let key = CelString::from(*name);
            match (self.field(name), other.get(&key)) {
                (Some(mine), Ok(theirs)) => mine.equals(&*theirs),
                _ => false,
            }
        })
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
    where
        Self: 'v,
    {
        Box::new(*self)
    }
}

impl Indexer for RequestView<'_> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let Some(key) = idx.downcast_ref::<CelString>() else {
            return Err(ExecutionError::UnexpectedType {
                got: idx.get_type().name().to_owned(),
                want: STRING_TYPE.name().to_owned(),
            });
        };
        self.field(key.inner())
            .map(CowVal::Owned)
            .ok_or_else(|| ExecutionError::no_such_key(key.inner()))
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}
