//! A store file that does not open cleanly is refused with a message naming the file and
//! what to do, never silently replaced or recreated, and never makes the store panic; a
//! value altered on disk is refused, not served.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use certgate_store::{Store, StoreError, StoreOptions, Stored};
use common::{key, object, prefix};
use redb::{Database, ReadableDatabase as _, ReadableTable as _, TableDefinition};

/// group, resource, namespace, name.
type KeyParts<'a> = (&'a str, &'a str, &'a str, &'a str);
const OBJECTS: TableDefinition<KeyParts, (u64, &[u8])> = TableDefinition::new("objects");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

fn open(dir: &Path) -> Result<Store, StoreError> {
    Store::open(StoreOptions { data_dir: Some(dir.to_owned()), ..StoreOptions::default() })
}

fn file(dir: &Path) -> PathBuf {
    dir.join("store.redb")
}

fn everything(store: &Store) -> Vec<Stored> {
    store.list(&prefix("issuers", None), None, None).items
}

/// A store holding a few objects; returns what it holds.
fn populated(dir: &Path) -> Vec<Stored> {
    let store = open(dir).unwrap();
    for index in 0..20 {
        let name = format!("object-{index}");
        store.create(key("issuers", "a", &name), object(&name, &"v".repeat(300))).unwrap();
    }
    everything(&store)
}

/// The refusal names the file, says it is left alone and what to do.
fn assert_refused(error: &StoreError, dir: &Path, problem: &str) {
    let message = error.to_string();
    let start = format!("storage failed: the store file {} ", file(dir).display());
    assert!(message.starts_with(&start), "{message}");
    assert!(message.contains(problem), "{message}");
    assert!(
        message.ends_with(
            "certgate never replaces or repairs a store it cannot read: move the file aside (or restore it from a backup) to keep its contents, or start with another, empty data directory"
        ),
        "{message}"
    );
}

#[test]
fn an_empty_store_file_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(file(dir.path()), b"").unwrap();
    let error = open(dir.path()).err().expect("an empty store file must not open");
    assert_refused(&error, dir.path(), "is empty (0 bytes): it holds no objects and no revision");
    assert_eq!(fs::read(file(dir.path())).unwrap().len(), 0, "the file was modified");
}

#[test]
fn a_truncated_store_file_is_refused_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    populated(dir.path());
    let length = fs::metadata(file(dir.path())).unwrap().len();
    for keep in [length / 2, length / 8, 512, 16] {
        let copy = tempfile::tempdir().unwrap();
        let bytes = fs::read(file(dir.path())).unwrap();
        fs::write(file(copy.path()), &bytes[..keep as usize]).unwrap();
        match open(copy.path()) {
            Err(error) => assert_refused(&error, copy.path(), ""),
            Ok(store) => panic!(
                "a store truncated to {keep} of {length} bytes opened with {} objects",
                everything(&store).len()
            ),
        }
        assert_eq!(fs::metadata(file(copy.path())).unwrap().len(), keep, "the file was modified");
    }
}

/// Overwrites each 4 KiB page of a populated store in turn (`fill` decides the bytes): the
/// store either refuses the file or opens with exactly what was written (the page was
/// unused), never panics, never serves something else; and at least one page is refused.
fn damage_each_page(fill: impl Fn(usize, &mut [u8])) {
    let dir = tempfile::tempdir().unwrap();
    let written = populated(dir.path());
    let original = fs::read(file(dir.path())).unwrap();
    let mut refused = 0;
    for (page, start) in (0..original.len()).step_by(4096).enumerate() {
        let mut bytes = original.clone();
        let end = (start + 4096).min(bytes.len());
        fill(page, &mut bytes[start..end]);
        if bytes == original {
            continue;
        }
        let copy = tempfile::tempdir().unwrap();
        fs::write(file(copy.path()), &bytes).unwrap();
        match open(copy.path()) {
            Err(error) => {
                assert_refused(&error, copy.path(), "");
                refused += 1;
            }
            Ok(store) => assert_eq!(everything(&store), written, "page {page} served other data"),
        }
    }
    assert!(refused > 0, "no damaged page was noticed");
}

#[test]
fn zeroed_pages_are_refused_or_harmless_never_a_panic() {
    damage_each_page(|_, page| page.fill(0));
}

#[test]
fn random_pages_are_refused_or_harmless_never_a_panic() {
    damage_each_page(|page, bytes| {
        // A fixed xorshift per page: the same bytes on every run.
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ page as u64;
        for byte in bytes {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *byte = state as u8;
        }
    });
}

#[test]
fn a_garbage_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(file(dir.path()), "this is not a database\n".repeat(400)).unwrap();
    let error = open(dir.path()).err().expect("garbage must not open");
    assert_refused(&error, dir.path(), "is not a readable redb database");
}

#[test]
fn a_flipped_byte_in_the_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    populated(dir.path());
    let mut bytes = fs::read(file(dir.path())).unwrap();
    let needle = br#""name":"object-13""#;
    // Copy-on-write leaves older copies of the page in free space: alter every copy, so
    // that the live one is altered too.
    let found: Vec<usize> =
        (0..bytes.len() - needle.len()).filter(|&at| bytes[at..].starts_with(needle)).collect();
    assert!(!found.is_empty(), "the value is in the file");
    for at in found {
        bytes[at + needle.len() - 2] ^= 0x01;
    }
    fs::write(file(dir.path()), &bytes).unwrap();
    let error = open(dir.path()).err().expect("an altered file must not open");
    assert_refused(&error, dir.path(), "");
}

/// A value altered through redb itself (so redb's own page checksums are valid): only the
/// store's checksum per value can notice.
#[test]
fn a_value_altered_behind_the_stores_back_is_refused_not_served() {
    let dir = tempfile::tempdir().unwrap();
    populated(dir.path());
    {
        let db = Database::open(file(dir.path())).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut table = txn.open_table(OBJECTS).unwrap();
            let parts = ("cert-manager.io", "issuers", "a", "object-7");
            let (revision, mut value) = {
                let stored = table.get(parts).unwrap().unwrap();
                let (revision, value) = stored.value();
                (revision, value.to_vec())
            };
            let at = value.windows(3).position(|w| w == b"vvv").unwrap();
            value[at] = b'w';
            table.insert(parts, (revision, value.as_slice())).unwrap();
        }
        txn.commit().unwrap();
    }
    let error = open(dir.path()).err().expect("an altered value must not be served");
    assert_refused(
        &error,
        dir.path(),
        "holds an altered value: the object issuers.cert-manager.io a/\"object-7\" (resourceVersion 8) does not match the checksum it was written with",
    );
}

/// A store written before values had checksums (no `format` in `meta`, plain JSON values)
/// is migrated in place: everything survives, and later damage is detected.
#[test]
fn a_store_from_before_checksums_is_migrated() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::create(file(dir.path())).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut objects = txn.open_table(OBJECTS).unwrap();
            let json = br#"{"metadata":{"name":"old","resourceVersion":"3"},"spec":{"value":"x"}}"#;
            objects.insert(("cert-manager.io", "issuers", "a", "old"), (3, &json[..])).unwrap();
            let mut meta = txn.open_table(META).unwrap();
            meta.insert("revision", 4).unwrap();
        }
        txn.commit().unwrap();
    }
    let store = open(dir.path()).unwrap();
    assert_eq!(store.revision(), 4);
    assert_eq!(store.get(&key("issuers", "a", "old")).unwrap().revision, 3);
    drop(store);
    let db = Database::open(file(dir.path())).unwrap();
    let txn = db.begin_read().unwrap();
    assert_eq!(txn.open_table(META).unwrap().get("format").unwrap().unwrap().value(), 2);
    drop((txn, db));
    let reopened = open(dir.path()).unwrap();
    assert_eq!(reopened.get(&key("issuers", "a", "old")).unwrap().object["spec"]["value"], "x");
}

#[test]
fn a_store_from_a_newer_certgate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    populated(dir.path());
    {
        let db = Database::open(file(dir.path())).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(META).unwrap().insert("format", 3).unwrap();
        txn.commit().unwrap();
    }
    let error = open(dir.path()).err().expect("a newer format must not open");
    assert_eq!(
        error.to_string(),
        format!(
            "storage failed: the store file {} was written by a newer certgate (store format 3; this one reads formats 1 and 2): use that certgate, or start with another data directory",
            file(dir.path()).display()
        )
    );
}

#[test]
fn a_redb_database_of_something_else_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Database::create(file(dir.path())).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(TableDefinition::<&str, &str>::new("other")).unwrap();
        txn.commit().unwrap();
    }
    let error = open(dir.path()).err().expect("a foreign database must not open");
    assert_refused(&error, dir.path(), "is a redb database but not a certgate store");
}

#[test]
fn a_new_data_directory_and_store_file_are_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    open(&data).unwrap().create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&file(&data)), 0o600);
    // Only the store file: the temporary one it was created as is gone.
    assert_eq!(fs::read_dir(&data).unwrap().count(), 1);

    fs::set_permissions(&data, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(file(&data), fs::Permissions::from_mode(0o644)).unwrap();
    let store = open(&data).unwrap();
    assert_eq!(store.revision(), 1);
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&file(&data)), 0o600);
}
