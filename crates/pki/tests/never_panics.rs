//! Property tests: hostile input produces `Ok` or `Err`, never a panic.

mod common;

use certgate_pki::{decode_csr, parse_csr};
use common::{fixture_text, pem, pem_to_der};
use proptest::prelude::*;

fn seeds() -> Vec<Vec<u8>> {
    ["rsa2048-sans.csr", "p384.csr", "p521-sha512.csr", "ed25519.csr", "rsa2048-pss.csr"]
        .iter()
        .map(|f| pem_to_der(&fixture_text(f)))
        .collect()
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, mask: u8 },
    Set { at: usize, byte: u8 },
    Insert { at: usize, bytes: Vec<u8> },
    Remove { at: usize, len: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Set { at, byte }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Remove { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(der: &mut Vec<u8>, mutation: &Mutation) {
    let len = der.len().max(1);
    match mutation {
        Mutation::Flip { at, mask } => {
            if let Some(b) = der.get_mut(at % len) {
                *b ^= mask;
            }
        }
        Mutation::Set { at, byte } => {
            if let Some(b) = der.get_mut(at % len) {
                *b = *byte;
            }
        }
        Mutation::Insert { at, bytes } => {
            let at = at % (der.len() + 1);
            der.splice(at..at, bytes.iter().copied());
        }
        Mutation::Remove { at, len: n } => {
            let start = at % len;
            let end = (start + n).min(der.len());
            if start < end {
                der.drain(start..end);
            }
        }
        Mutation::Truncate { at } => der.truncate(at % len),
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        let _ = parse_csr(&bytes);
        let _ = decode_csr(&bytes);
    }

    #[test]
    fn arbitrary_der_like_bytes(body in prop::collection::vec(any::<u8>(), 0..2048)) {
        // Start with a SEQUENCE header so the DER path is exercised, not just the PEM scan.
        let mut bytes = vec![0x30, 0x82];
        bytes.extend_from_slice(&u16::try_from(body.len()).unwrap().to_be_bytes());
        bytes.extend(body);
        let _ = parse_csr(&bytes);
    }

    #[test]
    fn arbitrary_text_in_a_pem_frame(text in "[ -~\n]{0,512}") {
        let input = format!("-----BEGIN CERTIFICATE REQUEST-----\n{text}\n-----END CERTIFICATE REQUEST-----\n");
        prop_assert!(parse_csr(input.as_bytes()).is_err());
    }

    #[test]
    fn mutated_valid_requests(
        seed in 0usize..5,
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut der = seeds().swap_remove(seed);
        for m in &mutations {
            apply(&mut der, m);
        }
        let parsed = parse_csr(&der);
        let decoded = decode_csr(&der);
        // Verification only ever removes successes.
        if let Ok(decoded) = &decoded {
            prop_assert_eq!(parsed.as_ref().ok(), Some(decoded));
        }
        // The PEM path must agree with the DER path.
        let via_pem = parse_csr(pem("CERTIFICATE REQUEST", &der).as_bytes());
        match (&parsed, &via_pem) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Err(_)) => {}
            (a, b) => prop_assert!(false, "DER {:?} vs PEM {:?}", a, b),
        }
    }
}
