//! A query-string extractor that refuses what a lenient one would quietly mangle or ignore.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// A query string read strictly: every `%` starts a two-digit escape and the decoded text is
/// UTF-8, where a lenient reader would quietly store U+FFFD in place of what was sent; and
/// every parameter is one of `T`'s, where a lenient reader would drop a misspelt `sumary`.
pub struct StrictQuery<T>(pub T);

impl<T: DeserializeOwned> FromRequest for StrictQuery<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(read(req.query_string()).map(Self))
    }
}

fn read<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    check_encoding(query).map_err(ApiError::MalformedQuery)?;
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| ApiError::MalformedQuery(e.to_string()))?;
    let known = fields::<T>();
    if let Some((name, _)) = pairs
        .iter()
        .find(|(name, _)| !known.contains(&name.as_str()))
    {
        return Err(ApiError::UnknownParameter {
            name: name.clone(),
            known,
        });
    }
    serde_urlencoded::from_str(query).map_err(|e| ApiError::MalformedQuery(e.to_string()))
}

/// The names of the fields `T` deserializes, as its derived `Deserialize` declares them.
fn fields<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = FieldNames(&[]);
    let _ = T::deserialize(&mut names);
    names.0
}

/// A deserializer that reads nothing: it keeps the field names a struct asks it for.
struct FieldNames(&'static [&'static str]);

impl<'de> serde::Deserializer<'de> for &mut FieldNames {
    type Error = serde::de::value::Error;

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(serde::de::Error::custom("only the field names are read"))
    }

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom(
            "only a struct's field names are read",
        ))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

fn check_encoding(query: &str) -> Result<(), String> {
    for pair in query.split('&') {
        let bytes = pair.as_bytes();
        let mut decoded = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'%' => {
                    let hex = bytes
                        .get(i + 1..i + 3)
                        .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                        .ok_or("a `%` is not followed by two hex digits")?;
                    let hex = std::str::from_utf8(hex).expect("hex digits are ASCII");
                    decoded.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
                    i += 3;
                }
                b'+' => {
                    decoded.push(b' ');
                    i += 1;
                }
                byte => {
                    decoded.push(byte);
                    i += 1;
                }
            }
        }
        std::str::from_utf8(&decoded).map_err(|_| "percent-encoded bytes are not UTF-8")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Two {
        #[allow(dead_code)]
        mode: Option<String>,
        #[allow(dead_code)]
        thread_id: Option<String>,
    }

    #[test]
    fn a_parameter_the_type_does_not_take_is_named() {
        assert_eq!(fields::<Two>(), ["mode", "thread_id"]);
        assert!(read::<Two>("mode=load&thread_id=a").is_ok());
        match read::<Two>("mode=load&thred_id=a") {
            Err(ApiError::UnknownParameter { name, .. }) => assert_eq!(name, "thred_id"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn accepts_utf8_and_refuses_broken_escapes_and_bytes() {
        assert!(check_encoding("mode=save&summary=%E8%A8%98%E6%86%B6+x").is_ok());
        assert!(check_encoding("").is_ok());
        for bad in [
            "summary=%zz",
            "summary=%E8%A8",
            "summary=%",
            "summary=%4",
            "summary=%+1",
            "a=%FF",
        ] {
            assert!(check_encoding(bad).is_err(), "{bad}");
        }
    }
}
