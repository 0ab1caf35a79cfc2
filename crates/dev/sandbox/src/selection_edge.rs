//! What a watcher with a label or field selector is told about one change, decided as the
//! API server's watch cache decides it: by whether the object passes the selection before
//! and after the change. An update that moves an object out of the selection is a `DELETED`
//! of the object as it was (with the update's resourceVersion), one that moves it in is an
//! `ADDED`, and an update outside the selection is not sent.

use std::borrow::Cow;

use certgate_store::{Change, Event};
use serde_json::Value;

/// An event to send: its type and the object (as the watcher's version shows it).
pub(crate) type Selected<'a> = Option<(&'static str, Cow<'a, Value>)>;

/// Turns a stored object into what the watcher's resource version shows.
pub(crate) type View = for<'a> fn(&'a Value) -> Cow<'a, Value>;

/// The stored object as it is.
pub(crate) fn as_stored(object: &Value) -> Cow<'_, Value> {
    Cow::Borrowed(object)
}

/// The event for `event`, or `None` when the watcher sees nothing of it. `view` turns a
/// stored object into what the watcher's resource version shows; `selected` is its
/// selection over that view.
pub(crate) fn decide<'a>(
    event: &'a Event,
    view: View,
    selected: &dyn Fn(&Value) -> bool,
) -> Selected<'a> {
    let pick = |kind, object: Cow<'a, Value>| selected(&object).then_some((kind, object));
    match &event.change {
        Change::Added(stored) => pick("ADDED", view(&stored.object)),
        Change::Deleted(stored) => pick("DELETED", view(&stored.object)),
        Change::Modified(stored) => {
            let now = view(&stored.object);
            let passes_now = selected(&now);
            let before = event.previous.as_ref().map(|previous| view(&previous.object));
            // A modification whose previous object is unknown is judged by its new one.
            let passed_before = before.as_deref().map_or(passes_now, selected);
            match (passed_before, passes_now) {
                (true, true) => Some(("MODIFIED", now)),
                (false, true) => Some(("ADDED", now)),
                (true, false) => {
                    let mut left = before.map_or_else(|| now.into_owned(), Cow::into_owned);
                    if let Some(metadata) = left.get_mut("metadata").and_then(Value::as_object_mut)
                    {
                        metadata.insert(
                            "resourceVersion".to_owned(),
                            Value::String(stored.revision.to_string()),
                        );
                    }
                    Some(("DELETED", Cow::Owned(left)))
                }
                (false, false) => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use certgate_store::{Key, Stored};
    use serde_json::json;

    use super::*;

    fn stored(team: &str, revision: u64) -> Stored {
        Stored {
            key: Key {
                group: String::new(),
                resource: "configmaps".to_owned(),
                namespace: "payments".to_owned(),
                name: "watched".to_owned(),
            },
            object: json!({"metadata": {"name": "watched", "labels": {"team": team}, "resourceVersion": revision.to_string()}}),
            revision,
        }
    }

    fn modified(before: &str, after: &str) -> Event {
        Event {
            change: Change::Modified(stored(after, 8)),
            previous: Some(Arc::new(stored(before, 7))),
        }
    }

    fn team_a(object: &Value) -> bool {
        object.pointer("/metadata/labels/team") == Some(&json!("a"))
    }

    fn decided(event: &Event) -> Option<(&'static str, Value)> {
        decide(event, as_stored, &team_a).map(|(kind, object)| (kind, object.into_owned()))
    }

    #[test]
    fn leaving_the_selection_is_a_deletion_of_the_object_as_it_was_at_the_new_version() {
        let (kind, object) = decided(&modified("a", "b")).unwrap();
        assert_eq!(kind, "DELETED");
        assert_eq!(object["metadata"]["labels"]["team"], "a");
        assert_eq!(object["metadata"]["resourceVersion"], "8");
    }

    #[test]
    fn entering_it_is_an_addition_and_staying_outside_is_nothing() {
        let (kind, object) = decided(&modified("b", "a")).unwrap();
        assert_eq!((kind, &object["metadata"]["labels"]["team"]), ("ADDED", &json!("a")));
        assert_eq!(decided(&modified("a", "a")).unwrap().0, "MODIFIED");
        assert_eq!(decided(&modified("b", "c")), None);
    }

    #[test]
    fn additions_and_deletions_are_judged_by_their_own_object() {
        let added = Event { change: Change::Added(stored("a", 3)), previous: None };
        assert_eq!(decided(&added).unwrap().0, "ADDED");
        let deleted = Event { change: Change::Deleted(stored("b", 4)), previous: None };
        assert_eq!(decided(&deleted), None);
        // A modification without its previous object is judged by the new one.
        let unknown = Event { change: Change::Modified(stored("a", 5)), previous: None };
        assert_eq!(decided(&unknown).unwrap().0, "MODIFIED");
    }
}
