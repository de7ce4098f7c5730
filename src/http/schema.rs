//! The OpenAPI 3.1 document a GPT Action imports, generated from the handlers.

use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::server::Server;
use utoipa::openapi::{OpenApi as Document, RefOr};
use utoipa::{Modify, OpenApi};

// The macro below reads each handler through its `__path_` twin.
use super::routes::forget::__path_forget;
use super::routes::memory::{__path_memory_get, __path_memory_post};
use crate::error_code::ErrorCode;
use serde_json::json;

/// The server URL of the committed `openapi/openapi.yaml`, for the user to replace.
pub const PLACEHOLDER_URL: &str = "https://your-kioku-service.example.com";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "kioku",
        description = "Memory for this GPT that outlives the chat: save a summary of the conversation, load saved summaries in a later one.",
    ),
    paths(memory_get, memory_post, forget),
    modifiers(&BearerAuth),
)]
struct ApiDoc;

/// GPT Actions send the API key the user enters as `Authorization: Bearer <key>`.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// How a served document differs from one server to another.
pub struct SchemaOptions<'a> {
    /// The one URL in `servers`.
    pub server_url: &'a str,
    /// List `POST /`, which GPT Actions refused on a domain that was not verified, as the
    /// original function's author reported.
    pub include_post: bool,
    /// The summary and profile length limits, shown as `maxLength`.
    pub max_summary_chars: usize,
    pub max_profile_chars: usize,
}

pub fn document(options: &SchemaOptions) -> Document {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").into();
    doc.servers = Some(vec![Server::new(options.server_url)]);
    let memory = doc
        .paths
        .paths
        .get_mut("/")
        .expect("the memory path is documented");
    if !options.include_post {
        memory.post = None;
        if let Some(components) = doc.components.as_mut() {
            components.schemas.remove("MemoryRequest");
        }
    }
    let limits = [
        ("summary", options.max_summary_chars),
        ("profile", options.max_profile_chars),
        ("q", options.max_summary_chars),
    ];
    for (name, limit) in limits {
        let in_query = memory
            .get
            .iter_mut()
            .flat_map(|get| get.parameters.iter_mut().flatten())
            .filter_map(|parameter| match parameter {
                RefOr::T(parameter) if parameter.name == name => parameter.schema.as_mut(),
                _ => None,
            });
        let in_body = doc
            .components
            .iter_mut()
            .filter_map(|components| components.schemas.get_mut("MemoryRequest"))
            .filter_map(|request| match request {
                RefOr::T(Schema::Object(request)) => request.properties.get_mut(name),
                _ => None,
            });
        for property in in_query.chain(in_body) {
            if let RefOr::T(Schema::Object(property)) = property {
                property.max_length = Some(limit);
            }
        }
    }
    leave_out_admin_codes(&mut doc);
    doc
}

/// The error codes a GPT can meet: those of the admin API are no concern of its model.
fn leave_out_admin_codes(doc: &mut Document) {
    let codes = doc
        .components
        .iter_mut()
        .filter_map(|components| components.schemas.get_mut("ErrorCode"));
    for code in codes {
        if let RefOr::T(Schema::Object(code)) = code
            && let Some(names) = code.enum_values.as_mut()
        {
            names.retain(|name| {
                !ErrorCode::ADMIN_ONLY
                    .iter()
                    .any(|admin| json!(admin) == *name)
            });
        }
    }
}
