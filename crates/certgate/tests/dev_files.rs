//! `certgate dev` and the files it writes or keeps: secrets are owner-only and replaced
//! atomically, symbolic links are refused, the data directory is owner-only, and a store
//! file that does not open cleanly stops the start instead of being replaced.

mod dev_support;

use std::fs;
use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dev_support::spawn_dev;

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

/// Stops the child (SIGKILL: these tests look at files, not at a graceful shutdown).
fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `certgate dev FLAGS...`, which must fail: returns its standard error. A `certgate
/// dev` that starts serving instead is killed after 60 s and the test fails (the bound
/// keeps a regression from hanging the suite; nothing is asserted about durations).
fn fails_to_start(flags: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["dev", "--listen", "127.0.0.1:0", "--no-webhook"])
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("certgate dev {} kept running instead of failing", flags.join(" "));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert!(!status.success(), "{stderr}");
    stderr
}

#[test]
fn an_existing_world_readable_kubeconfig_is_replaced_by_an_owner_only_one() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    fs::write(&kubeconfig, "old, readable by everyone\n").unwrap();
    fs::set_permissions(&kubeconfig, fs::Permissions::from_mode(0o644)).unwrap();
    let (child, _, _) = spawn_dev(dir.path(), &["--no-webhook"]);
    let written = fs::read_to_string(&kubeconfig).unwrap();
    let mode = mode(&kubeconfig);
    stop(child);
    assert!(written.contains("token: sandbox-"), "{written}");
    assert_eq!(mode, 0o600, "the kubeconfig with the admin token is {mode:o}");
}

#[test]
fn a_kubeconfig_path_that_is_a_symbolic_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere");
    fs::write(&target, "not for the token\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("kubeconfig");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let stderr = fails_to_start(&["--kubeconfig-out", link.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!(
            "--kubeconfig-out: {} is a symbolic link; certgate writes secrets only to a regular file that it replaces itself: remove the link or choose another path",
            link.display()
        )),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "not for the token\n");
}

#[test]
fn the_data_directory_and_everything_in_it_are_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Made by hand, readable by everyone: tightened.
    fs::create_dir(&data).unwrap();
    fs::set_permissions(&data, fs::Permissions::from_mode(0o755)).unwrap();
    let (child, _, _) =
        spawn_dev(dir.path(), &["--no-webhook", "--data-dir", data.to_str().unwrap()]);
    let modes: Vec<(String, u32)> = fs::read_dir(&data)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name().to_string_lossy().into_owned(), mode(&entry.path()))
        })
        .collect();
    let directory = mode(&data);
    stop(child);
    assert_eq!(directory, 0o700);
    let mut names: Vec<&str> = modes.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["service-account-key.pk8", "store.redb"]);
    for (name, mode) in &modes {
        assert_eq!(*mode, 0o600, "{name} is {mode:o}");
    }
}

#[test]
fn an_empty_store_file_stops_the_start_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir(&data).unwrap();
    let store = data.join("store.redb");
    fs::write(&store, b"").unwrap();
    let stderr = fails_to_start(&["--data-dir", data.to_str().unwrap()]);
    assert!(
        stderr.contains(&format!(
            "cannot open the sandbox's storage: storage failed: the store file {} is empty (0 bytes): it holds no objects and no revision. certgate never replaces or repairs a store it cannot read: move the file aside (or restore it from a backup) to keep its contents, or start with another, empty data directory",
            store.display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(fs::metadata(&store).unwrap().len(), 0);
}

#[test]
fn a_store_file_of_zeros_stops_the_start_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::create_dir(&data).unwrap();
    let store = data.join("store.redb");
    fs::write(&store, vec![0u8; 64 * 1024]).unwrap();
    let stderr = fails_to_start(&["--data-dir", data.to_str().unwrap()]);
    assert!(stderr.contains(&format!("the store file {} ", store.display())), "{stderr}");
    assert!(stderr.contains("certgate never replaces or repairs a store"), "{stderr}");
    assert_eq!(fs::read(&store).unwrap(), vec![0u8; 64 * 1024]);
}
