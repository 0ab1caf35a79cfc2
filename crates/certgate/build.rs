//! Build metadata for `certgate version`: the commit (`git rev-parse --short HEAD`) and the
//! build date, as `CERTGATE_GIT_COMMIT` and `CERTGATE_BUILD_DATE`.
//!
//! - `CERTGATE_GIT_COMMIT`, when set and not empty, is the commit: a build without `.git`
//!   (the container image's build context) passes the one it was made from.
//! - Without git or outside a checkout (a source tarball), both fall back to `unknown` where
//!   they cannot be known; the build never fails for lack of them.
//! - `SOURCE_DATE_EPOCH` (<https://reproducible-builds.org/specs/source-date-epoch/>), when set,
//!   is the build date, so a reproducible build gives the same binary twice.
//! - Otherwise the date is when this script last ran. It reruns only when `HEAD` or the branch
//!   it points to moves, or `SOURCE_DATE_EPOCH` changes, never on every build, so incremental
//!   builds and caches keep working.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    println!("cargo:rerun-if-env-changed=CERTGATE_GIT_COMMIT");
    let given = std::env::var("CERTGATE_GIT_COMMIT").ok().filter(|c| !c.trim().is_empty());
    let commit = given
        .or_else(|| git(&["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    watch_git_head();
    println!("cargo:rustc-env=CERTGATE_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=CERTGATE_BUILD_DATE={}", build_date());
}

/// The standard output of a git command run in this crate's directory, trimmed; `None` when
/// git is missing, fails or prints nothing.
fn git(args: &[&str]) -> Option<String> {
    let output =
        Command::new("git").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !text.is_empty()).then_some(text)
}

/// Reruns this script when the commit changes: `HEAD` (a branch switch or a detached
/// checkout) and the branch's ref, loose or packed. Only existing files are named: Cargo reruns
/// a script on every build while a file it watches is missing.
fn watch_git_head() {
    let absolute = |path: String| {
        let path = PathBuf::from(path);
        if path.is_absolute() { path } else { Path::new(env!("CARGO_MANIFEST_DIR")).join(path) }
    };
    let Some(git_dir) = git(&["rev-parse", "--git-dir"]).map(absolute) else { return };
    let common_dir = git(&["rev-parse", "--git-common-dir"]).map_or(git_dir.clone(), absolute);
    let mut watched = vec![git_dir.join("HEAD")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common_dir.join(branch));
        watched.push(common_dir.join("packed-refs"));
    }
    for path in watched.into_iter().filter(|path| path.is_file()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// `SOURCE_DATE_EPOCH` or now, as RFC 3339 in UTC (`2026-11-29T12:00:00Z`); `unknown` when
/// `SOURCE_DATE_EPOCH` is not a whole number of seconds.
fn build_date() -> String {
    let seconds = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => match text.trim().parse::<i64>() {
            Ok(seconds) => seconds,
            Err(_) => {
                println!(
                    "cargo:warning=SOURCE_DATE_EPOCH '{text}' is not a whole number of seconds; the build date is unknown"
                );
                return "unknown".to_owned();
            }
        },
        Err(_) => match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(since) => i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            Err(_) => return "unknown".to_owned(),
        },
    };
    rfc3339(seconds)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar).
fn rfc3339(seconds: i64) -> String {
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Howard Hinnant's days_from_civil, inverted.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}
