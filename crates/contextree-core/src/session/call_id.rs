//! Tool-call ids as the agents compare them.
//!
//! The agents pair a `toolCall` block with a `toolResult` through JavaScript
//! sets and maps (`Set.has(block.id)`, `Map.get(msg.toolCallId)`), which
//! compare with SameValueZero: a call without an `id` pairs with a result
//! without a `toolCallId` (`undefined` equals `undefined`), `null` pairs with
//! `null`, `1` with `1.0`, and an object or array pairs with nothing (each
//! parsed one is a different object). The index keeps each id as a 64-bit key
//! that follows those rules, so the context never holds the id strings.

use serde_json::Value;

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const STRING_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// Keys of other JavaScript types start from another basis, so none of them
/// is the hash of some string (barring a 64-bit collision, as between strings).
const TYPED_BASIS: u64 = STRING_BASIS ^ 0x5a5a_5a5a_5a5a_5a5a;

const fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u64).wrapping_mul(FNV_PRIME);
        i += 1;
    }
    h
}

const fn typed_key(tag: u8, bytes: &[u8]) -> u64 {
    fnv(fnv(TYPED_BASIS, &[tag]), bytes)
}

/// The key of a missing id (`undefined`).
pub(super) const UNDEFINED_CALL_ID: u64 = typed_key(b'u', &[]);

/// The key of a `null` id.
pub(super) const NULL_CALL_ID: u64 = typed_key(b'z', &[]);

/// What a call whose id is an object or an array keeps: [`call_key`] never
/// gives it, so the call pairs with no result.
pub(super) const UNPAIRED_CALL_ID: u64 = typed_key(b'o', &[]);

/// A 64-bit FNV-1a hash of a string tool-call id: the context compares ids,
/// never shows them, so the index keeps 8 bytes instead of the string.
pub fn call_id_hash(id: &str) -> u64 {
    call_id_hash_bytes(id.as_bytes())
}

/// [`call_id_hash`] of an id's UTF-8 bytes (the scanner's, which need no `&str`).
pub(super) fn call_id_hash_bytes(id: &[u8]) -> u64 {
    fnv(STRING_BASIS, id)
}

/// The key of an id value as a JavaScript set compares it (`None`: the field
/// is missing). An object or array is equal to nothing else: `None`.
pub fn call_key(id: Option<&Value>) -> Option<u64> {
    match id {
        None => Some(UNDEFINED_CALL_ID),
        Some(Value::Null) => Some(NULL_CALL_ID),
        Some(Value::String(s)) => Some(call_id_hash(s)),
        Some(Value::Bool(b)) => Some(typed_key(b'b', &[u8::from(*b)])),
        Some(Value::Number(n)) => {
            // A JSON number is a double in JavaScript; `+ 0.0` makes -0 the key of 0.
            let x = n.as_f64().unwrap_or(f64::NAN) + 0.0;
            Some(typed_key(b'n', &x.to_bits().to_le_bytes()))
        }
        Some(Value::Array(_) | Value::Object(_)) => None,
    }
}

/// The key a `toolCall` block's id is kept under (an object or array id:
/// [`UNPAIRED_CALL_ID`]).
pub fn call_block_key(block: &Value) -> u64 {
    call_key(block.get("id")).unwrap_or(UNPAIRED_CALL_ID)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key(v: Value) -> Option<u64> {
        call_key(Some(&v))
    }

    #[test]
    fn keys_are_equal_where_javascript_sets_find_the_value() {
        assert_eq!(call_key(None), call_key(None));
        assert_eq!(key(json!(null)), key(json!(null)));
        assert_eq!(key(json!("c1")), key(json!("c1")));
        assert_eq!(key(json!(1)), key(json!(1.0)));
        assert_eq!(key(json!(0)), key(json!(-0.0)));
        assert_eq!(key(json!(true)), key(json!(true)));
    }

    #[test]
    fn keys_differ_across_types_and_values() {
        let keys = [call_key(None), key(json!(null)), key(json!("")), key(json!("1")), key(json!(1)), key(json!(true)), key(json!(false))];
        for (i, a) in keys.iter().enumerate() {
            assert!(a.is_some());
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_ne!(key(json!("undefined")), call_key(None));
        assert_ne!(key(json!("null")), key(json!(null)));
    }

    #[test]
    fn objects_and_arrays_pair_with_nothing() {
        assert_eq!(key(json!({"a": 1})), None);
        assert_eq!(key(json!([])), None);
        let block = json!({"type": "toolCall", "id": {"a": 1}});
        assert_eq!(call_block_key(&block), UNPAIRED_CALL_ID);
        for v in [json!(null), json!("x"), json!(2), json!(false)] {
            assert_ne!(key(v), Some(UNPAIRED_CALL_ID));
        }
        assert_ne!(call_key(None), Some(UNPAIRED_CALL_ID));
    }

    #[test]
    fn string_keys_are_the_string_hash() {
        assert_eq!(call_block_key(&json!({"id": "call_1"})), call_id_hash("call_1"));
        assert_eq!(call_block_key(&json!({"type": "toolCall"})), UNDEFINED_CALL_ID);
    }
}
