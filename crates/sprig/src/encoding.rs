//! base64 and base32 (standard alphabets, padded). Decoding errors are returned as the
//! result text, as sprig does, with Go's byte offsets.

use base64::Engine;
use certgate_gotemplate::FuncMap;

use crate::args::{Arity, reg, s};

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

pub fn b64enc(input: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(input)
}

fn b64_val(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Go's `base64.StdEncoding.DecodeString`, error offsets included (newlines are skipped).
pub fn b64dec(input: &str) -> Result<Vec<u8>, String> {
    let src = input.as_bytes();
    let err = |at: usize| format!("illegal base64 data at input byte {at}");
    let mut out = Vec::new();
    let mut si = 0usize;
    while si < src.len() {
        let mut dbuf = [0u8; 4];
        let mut dlen = 4;
        let mut j = 0usize;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(err(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_val(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(err(si - 1));
            }
            // Padding: only after two or three symbols.
            match j {
                0 | 1 => return Err(err(si - 1)),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(err(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(err(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                return Err(err(si));
            }
            dlen = j;
            break;
        }
        let v = (u32::from(dbuf[0]) << 18)
            | (u32::from(dbuf[1]) << 12)
            | (u32::from(dbuf[2]) << 6)
            | u32::from(dbuf[3]);
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if dlen < 4 {
            break;
        }
    }
    Ok(out)
}

pub fn b32enc(input: &[u8]) -> String {
    let mut out = String::new();
    for chunk in input.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let v = buf.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let symbols = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for k in 0..8 {
            if k < symbols {
                out.push(B32[((v >> (35 - 5 * k)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `base32.StdEncoding.DecodeString` (newlines removed first, offsets counted after).
pub fn b32dec(input: &str) -> Result<Vec<u8>, String> {
    let src: Vec<u8> = input.bytes().filter(|c| *c != b'\n' && *c != b'\r').collect();
    let err = |at: usize| format!("illegal base32 data at input byte {at}");
    let olen = src.len();
    let mut rest: &[u8] = &src;
    let mut out = Vec::new();
    let mut end = false;
    while !rest.is_empty() && !end {
        let mut dbuf = [0u8; 8];
        let mut dlen = 8;
        let mut j = 0usize;
        while j < 8 {
            let Some((&c, tail)) = rest.split_first() else {
                return Err(err(olen - rest.len() - j));
            };
            rest = tail;
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(err(olen));
                }
                for k in 0..(7 - j) {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(err(olen - rest.len() + k - 1));
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(err(olen - rest.len() - 1));
                }
                break;
            }
            match B32.iter().position(|b| *b == c) {
                Some(v) => dbuf[j] = v as u8,
                None => return Err(err(olen - rest.len() - 1)),
            }
            j += 1;
        }
        let v = dbuf.iter().fold(0u64, |acc, d| (acc << 5) | u64::from(*d));
        let bytes = [(v >> 32) as u8, (v >> 24) as u8, (v >> 16) as u8, (v >> 8) as u8, v as u8];
        let n = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&bytes[..n]);
    }
    Ok(out)
}

pub fn register(m: &mut FuncMap) {
    reg(m, "b64enc", Arity::Exact(1), |a| Ok(s(b64enc(a.str(0)?))));
    reg(m, "b64dec", Arity::Exact(1), |a| {
        Ok(s(match b64dec(a.str(0)?) {
            Ok(b) => certgate_gofmt::lossy_utf8(&b),
            Err(e) => e,
        }))
    });
    reg(m, "b32enc", Arity::Exact(1), |a| Ok(s(b32enc(a.str(0)?.as_bytes()))));
    reg(m, "b32dec", Arity::Exact(1), |a| {
        Ok(s(match b32dec(a.str(0)?) {
            Ok(b) => certgate_gofmt::lossy_utf8(&b),
            Err(e) => e,
        }))
    });
}
