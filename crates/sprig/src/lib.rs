//! The sprig v3 template function library (Masterminds/sprig 3.3.0) for certgate's Go
//! templates.
//!
//! [`functions`] returns sprig's whole `TxtFuncMap`: the 211 names of [`SPRIG_NAMES`],
//! `env` and `expandenv` included (OCM hub templates denylist those two and expose the other
//! 209; the behaviour spec's §7.5 counts 201, but sprig 3.3.0's map has 209 names besides the
//! two, which this crate follows). Each function converts its arguments as Go's
//! `text/template` would (arity and type errors are [`FuncError::arguments`] with Go's text),
//! applies sprig's conversions (`toString`, spf13/cast's number rules) and reports its own
//! failures as [`FuncError::call`] with sprig's or Go's message. Where sprig panics (the plain
//! list functions, `substr` out of range, `regexFind` with a bad pattern …) Go's template engine
//! reports the panic as a call error; so does this crate, with the panic's text.
//!
//! Module map: `strings`/`case` (string functions), `convert` (conversions), `lists`,
//! `dicts`, `math` (integer and decimal float math), `defaults` + `json`, `regex`, `paths`,
//! `encoding` (base64/base32), `url`, `semver`, `dates` + `golayout` (Go layouts and
//! durations), `crypto` (hashes, random values, passwords, AES), `certs` (keys and
//! certificates), `reflect` (type functions, environment, DNS).
//!
//! # Limits
//!
//! Nothing a template asks for may allocate without bound: `repeat`, `indent`, `replace`
//! with an empty pattern, `until`, `untilStep`, `seq`, `append`/`prepend`, `concat`, the
//! `rand*` strings and `randBytes` refuse results above [`MAX_ELEMENTS`] (1,000,000 elements
//! or bytes) with `<fn>: result of N elements exceeds certgate's limit of 1000000`. The same
//! functions, and those that copy all their arguments or serialize a value (`cat`, `quote`,
//! `squote`, `join` — whose separator is copied once per element —, `toJson` and its forms,
//! `toString`, `toStrings`, `merge` and its forms), first check the execution's remaining
//! budget (`certgate_gotemplate::budget`): many calls under the per-call limit add up, and a
//! value that shares parts serializes to far more than it occupies. `uniq` compares within
//! hash buckets, so it is linear rather than quadratic in the list's length.
//!
//! # Differences from sprig
//!
//! - **Values are immutable.** `set`, `unset`, `merge`, `mergeOverwrite` and their `must`
//!   forms return the changed dictionary but do not change the one passed in, as Go's maps
//!   would be. `{{ $_ := set $d "k" "v" }}` followed by a read of `$d` sees the old
//!   dictionary; use the result instead. `deepCopy` returns the (shared, immutable) value.
//! - **Go types collapse into template values.** Integers of every Go width are one `Int`
//!   (`duration`, `durationRound` and `ago` treat it as `int64`, where sprig ignores a plain
//!   `int` in some of them); lists are `[]interface {}` (so `typeOf (splitList …)` is
//!   `[]interface {}`, not `[]string`); dictionaries have string keys.
//! - **Times are text.** Go's `time.Time` has no template value here: `now`, `toDate`,
//!   `dateModify` … return Go's `Time.String()` text (`2023-12-31 13:04:05.5 +0000 UTC`,
//!   without the monotonic `m=+…` suffix), and every date function reads that text back.
//!   `typeOf now` is therefore `string`. A string that is not such a text means "now" in
//!   `date`/`ago` (sprig's default for values that are not times) and is a type error where
//!   sprig's parameter is `time.Time`. The process's local zone is taken to be UTC.
//! - **`semver`** returns a dictionary with `Major`, `Minor`, `Patch` (uint64),
//!   `Prerelease`, `Metadata` and `Original` instead of a `*semver.Version`; field access
//!   works the same, printing the value does not give `1.2.3`. Constraints support `=`,
//!   `!=`, `>`, `<`, `>=`, `<=`, `~`, `~>`, `^`, `x`/`X`/`*` wildcards, `a - b` ranges, `||`
//!   and comma/space conjunctions; pre-release versions only match constraints that carry a
//!   pre-release. Rarer Masterminds corner cases (pre-release ordering across ranges) may
//!   differ.
//! - **Regular expressions** run on Rust's `regex` (RE2 syntax, same matches); compile
//!   errors carry Rust's description after Go's `error parsing regexp: ` prefix.
//! - **Strings.** Functions that slice by byte (`substr`, `trunc`, `abbrev*`, `wrap*`) or
//!   decode bytes (`b64dec`, `b32dec`, `decryptAES`) replace each byte that is not UTF-8
//!   with U+FFFD (Go keeps the raw bytes), and later functions see the U+FFFD characters
//!   (`b64dec "gA==" | len` is 3, Go's 1). Case functions map one character to one as Go's
//!   Unicode 15 tables do (`ß` stays `ß`).
//! - **Map order.** `keys`, `values` and `pluck` over several dictionaries return keys in
//!   sorted order (Go's map order is random).
//! - **URLs.** `urlParse`/`urlJoin` implement the common subset of Go's `net/url`: no
//!   `RawPath` preservation and no escaping of the user info.
//! - **Keys and certificates** are built with `rcgen`/`ring` (RSA keys with the `rsa`
//!   crate): same key types and sizes (RSA-2048 for `gen*Cert`/`genCA`, RSA-4096 for
//!   `genPrivateKey "rsa"`, P-256 for `"ecdsa"`), subject, SANs, validity, key usages and
//!   CA flag as sprig; the encoding of extensions rcgen adds (key identifiers) may differ
//!   from Go's `crypto/x509`. `ed25519` keys are PKCS#8 v2 (with the public key).
//! - **Not available:** `genPrivateKey "dsa"` fails with `genPrivateKey "dsa" is not
//!   available in certgate: …` (DSA is deprecated and no vetted Rust implementation is used).
//! - `bcrypt`/`htpasswd` use the `bcrypt` crate (`$2a$`, cost 10, like Go);
//!   `derivePassword` is the real Master Password algorithm (scrypt + HMAC-SHA256);
//!   `encryptAES`/`decryptAES` use sprig's format (zero-padded 32-byte key, AES-256-CBC,
//!   PKCS#7, base64 of IV ‖ ciphertext). Random values come from the system CSPRNG.
//! - `getHostByName` resolves with the system resolver (`ToSocketAddrs`) and picks one
//!   address at random, as sprig does; no address gives Go's `invalid argument to Intn`.
//! - Argument conversion accepts integer values for `int` parameters and strings for
//!   `string` parameters; Go's template engine would additionally convert untyped numeric
//!   constants (e.g. a literal `2.0` for an `int`).

#![forbid(unsafe_code)]

mod args;
mod case;
mod certs;
mod convert;
mod crypto;
mod dates;
mod defaults;
mod dicts;
mod encoding;
mod gofmt;
mod golayout;
mod json;
mod lists;
mod math;
mod names;
mod paths;
mod reflect;
mod regex;
mod semver;
mod strings;
mod url;

pub use args::MAX_ELEMENTS;
pub use names::SPRIG_NAMES;

#[cfg(doc)]
use certgate_gotemplate::FuncError;
use certgate_gotemplate::FuncMap;

/// Every function of sprig's `TxtFuncMap`, by sprig's names.
pub fn functions() -> FuncMap {
    let mut m = FuncMap::new();
    args::reg(&mut m, "hello", args::Arity::Exact(0), |_| Ok(args::s("Hello!")));
    strings::register(&mut m);
    convert::register(&mut m);
    lists::register(&mut m);
    dicts::register(&mut m);
    math::register(&mut m);
    defaults::register(&mut m);
    regex::register(&mut m);
    paths::register(&mut m);
    encoding::register(&mut m);
    reflect::register(&mut m);
    url::register(&mut m);
    semver::register(&mut m);
    dates::register(&mut m);
    crypto::register(&mut m);
    certs::register(&mut m);
    m
}
