//! Standard base64 with padding (RFC 4648 §4): resource blobs, the opaque
//! `requestState`, and the `=?base64?…?=` values of HTTP headers.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as padded base64.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes `text` encodes; `None` unless it is canonical padded base64.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (index, quad) in bytes.chunks(4).enumerate() {
        let last = index == bytes.len() / 4 - 1;
        let padding = quad.iter().rev().take_while(|b| **b == b'=').count();
        if padding > 2 || (padding > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, byte) in quad[..4 - padding].iter().enumerate() {
            let value = ALPHABET.iter().position(|a| a == byte)?;
            n |= (value as u32) << (18 - 6 * i);
        }
        let kept = 3 - padding;
        // Bits below the kept bytes must be zero, or the text is not canonical.
        if n & ((1 << (8 * (3 - kept))) - 1) != 0 {
            return None;
        }
        out.extend((0..kept).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_known_vectors() {
        assert_eq!(encode(b""), "");
        assert_eq!(encode(b"f"), "Zg==");
        assert_eq!(encode(b"fo"), "Zm8=");
        assert_eq!(encode(b"foo"), "Zm9v");
        assert_eq!(encode(&[0, 1, 2, 3, 254, 255]), "AAECA/7/");
    }

    #[test]
    fn decodes_what_it_encodes_and_nothing_malformed() {
        for sample in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            "Hello, \u{4e16}\u{754c}".as_bytes(),
        ] {
            assert_eq!(decode(&encode(sample)).as_deref(), Some(sample));
        }
        assert_eq!(decode("SGVsbG8sIOS4lueVjA==").unwrap(), "Hello, 世界".as_bytes());
        for bad in ["Zg=", "Zg=a", "Z===", "Zh==", "Zm9v!A==", "=Zg="] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
