//! The OAuth server's records as Firestore documents, and back. Each field holds a native
//! value (a timestamp, a boolean, an array), so that queries compare them as such; a record's
//! id (a credential's digest) is its document's.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use firestore::gcloud_sdk::google::firestore::v1::{ArrayValue, Document, Value, value::ValueType};

use crate::store::firestore::document::entries::{document_id, string_value, timestamp};
use crate::store::firestore::document::layout::{EXPIRES_AT, GRANT_ID, NAMESPACE, USED};
use crate::store::{Client, Credential, CredentialKind, Grant, StoreError};

/// A document's fields, by name.
pub type Fields = HashMap<String, Value>;

pub fn client_fields(client: &Client) -> Fields {
    let uris = client.redirect_uris.iter().map(|uri| string_value(uri));
    let mut fields = Fields::from([
        ("name".into(), string_value(&client.name)),
        (
            "secret_digest".into(),
            optional(client.secret_digest.as_deref()),
        ),
        ("redirect_uris".into(), array(uris.collect())),
        ("registered".into(), boolean(client.registered)),
        ("created_at".into(), time_value(client.created_at)),
    ]);
    // Left out rather than null, so that the purge's range query never meets it.
    if let Some(at) = client.expires_at {
        fields.insert(EXPIRES_AT.into(), time_value(at));
    }
    fields
}

pub fn grant_fields(grant: &Grant) -> Fields {
    Fields::from([
        ("client_id".into(), string_value(&grant.client_id)),
        ("client_name".into(), optional(grant.client_name.as_deref())),
        (NAMESPACE.into(), string_value(&grant.namespace)),
        (
            "namespace_label".into(),
            string_value(&grant.namespace_label),
        ),
        ("signed_in_with".into(), string_value(&grant.signed_in_with)),
        (
            "token_digest".into(),
            optional(grant.token_digest.as_deref()),
        ),
        ("scope".into(), string_value(&grant.scope)),
        ("resource".into(), optional(grant.resource.as_deref())),
        ("created_at".into(), time_value(grant.created_at)),
        (EXPIRES_AT.into(), time_value(grant.expires_at)),
    ])
}

/// The credential's fields, under `grant_id` whatever its own says.
pub fn credential_fields(credential: &Credential, grant_id: Option<&str>) -> Fields {
    Fields::from([
        ("kind".into(), string_value(credential.kind.as_str())),
        (GRANT_ID.into(), optional(grant_id)),
        (EXPIRES_AT.into(), time_value(credential.expires_at)),
        (USED.into(), boolean(credential.used)),
        ("body".into(), string_value(&credential.body)),
    ])
}

pub fn client(doc: &Document) -> Result<Client, StoreError> {
    let read = Read(doc);
    Ok(Client {
        id: read.id(),
        name: read.string("name")?,
        secret_digest: read.optional("secret_digest")?,
        redirect_uris: read.strings("redirect_uris")?,
        registered: read.boolean("registered")?,
        created_at: read.time("created_at")?,
        expires_at: match read.field(EXPIRES_AT) {
            None | Some(ValueType::NullValue(_)) => None,
            Some(_) => Some(read.time(EXPIRES_AT)?),
        },
    })
}

pub fn grant(doc: &Document) -> Result<Grant, StoreError> {
    let read = Read(doc);
    Ok(Grant {
        id: read.id(),
        client_id: read.string("client_id")?,
        namespace: read.string(NAMESPACE)?,
        namespace_label: read.string("namespace_label")?,
        signed_in_with: read.string("signed_in_with")?,
        scope: read.string("scope")?,
        resource: read.optional("resource")?,
        created_at: read.time("created_at")?,
        expires_at: read.time(EXPIRES_AT)?,
        token_digest: read.optional("token_digest")?,
        client_name: read.optional("client_name")?,
    })
}

pub fn credential(doc: &Document) -> Result<Credential, StoreError> {
    let read = Read(doc);
    Ok(Credential {
        digest: read.id(),
        kind: CredentialKind::from_name(&read.string("kind")?).ok_or_else(|| malformed("kind"))?,
        grant_id: read.optional(GRANT_ID)?,
        expires_at: read.time(EXPIRES_AT)?,
        used: read.boolean(USED)?,
        body: read.string("body")?,
    })
}

/// Kept to the microsecond, as Firestore keeps it.
pub fn time_value(at: DateTime<Utc>) -> Value {
    typed(ValueType::TimestampValue(timestamp(at)))
}

pub fn boolean(value: bool) -> Value {
    typed(ValueType::BooleanValue(value))
}

fn optional(text: Option<&str>) -> Value {
    text.map_or(typed(ValueType::NullValue(0)), string_value)
}

fn array(values: Vec<Value>) -> Value {
    typed(ValueType::ArrayValue(ArrayValue { values }))
}

fn typed(value_type: ValueType) -> Value {
    Value {
        value_type: Some(value_type),
    }
}

/// A record's fields, each read as the type it was written with.
struct Read<'a>(&'a Document);

impl Read<'_> {
    fn id(&self) -> String {
        document_id(self.0)
    }

    fn field(&self, name: &str) -> Option<&ValueType> {
        self.0.fields.get(name)?.value_type.as_ref()
    }

    fn string(&self, name: &'static str) -> Result<String, StoreError> {
        match self.field(name) {
            Some(ValueType::StringValue(text)) => Ok(text.clone()),
            _ => Err(malformed(name)),
        }
    }

    /// A string, or null (or missing) for none.
    fn optional(&self, name: &'static str) -> Result<Option<String>, StoreError> {
        match self.field(name) {
            Some(ValueType::StringValue(text)) => Ok(Some(text.clone())),
            Some(ValueType::NullValue(_)) | None => Ok(None),
            Some(_) => Err(malformed(name)),
        }
    }

    fn strings(&self, name: &'static str) -> Result<Vec<String>, StoreError> {
        let Some(ValueType::ArrayValue(array)) = self.field(name) else {
            return Err(malformed(name));
        };
        array
            .values
            .iter()
            .map(|value| match &value.value_type {
                Some(ValueType::StringValue(text)) => Ok(text.clone()),
                _ => Err(malformed(name)),
            })
            .collect()
    }

    fn boolean(&self, name: &'static str) -> Result<bool, StoreError> {
        match self.field(name) {
            Some(ValueType::BooleanValue(value)) => Ok(*value),
            _ => Err(malformed(name)),
        }
    }

    fn time(&self, name: &'static str) -> Result<DateTime<Utc>, StoreError> {
        let Some(ValueType::TimestampValue(at)) = self.field(name) else {
            return Err(malformed(name));
        };
        u32::try_from(at.nanos)
            .ok()
            .and_then(|nanos| DateTime::from_timestamp(at.seconds, nanos))
            .ok_or_else(|| malformed(name))
    }
}

fn malformed(field: &'static str) -> StoreError {
    StoreError::failed(
        "a stored OAuth record could not be read",
        format!("its field `{field}` is missing or not of the type kioku writes"),
    )
}
