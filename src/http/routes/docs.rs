//! What a GPT builder pastes into the GPT editor: the OpenAPI schema and the instructions.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::get_or_head::get_or_head;
use crate::domain::Door;
use crate::guide::{self, Language};
use crate::http::error::ApiError;
use crate::http::pages::language::language;
use crate::http::schema::{self, SchemaOptions};
use crate::http::state::AppState;
use crate::http::strict_query::StrictQuery;

pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.json", get_or_head().to(openapi_json))
        .route("/openapi.yaml", get_or_head().to(openapi_yaml))
        .route("/prompt", get_or_head().to(prompt));
}

/// The schema, for this server's public URL.
fn schema(req: &HttpRequest, app: &AppState) -> utoipa::openapi::OpenApi {
    schema::document(&SchemaOptions {
        server_url: &app.site.base_url(req),
        include_post: app.site.schema_post,
        max_summary_chars: app.memory.rules().max_summary_chars,
        max_profile_chars: app.memory.rules().max_profile_chars,
    })
}

pub async fn openapi_json(req: HttpRequest, app: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(schema(&req, &app))
}

pub async fn openapi_yaml(req: HttpRequest, app: web::Data<AppState>) -> HttpResponse {
    let yaml = schema(&req, &app).to_yaml().expect("the schema serializes");
    HttpResponse::Ok()
        .content_type("application/yaml; charset=utf-8")
        .body(yaml)
}

#[derive(Deserialize)]
pub struct PromptQuery {
    lang: Option<String>,
}

/// Sample instructions for the GPT: in `lang`, else in the browser's language (of the two),
/// else in Japanese.
pub async fn prompt(
    req: HttpRequest,
    StrictQuery(query): StrictQuery<PromptQuery>,
) -> Result<HttpResponse, ApiError> {
    let accepted = req.headers().contains_key(header::ACCEPT_LANGUAGE);
    let lang = match query.lang.as_deref() {
        None if accepted => language(&req, None).lang,
        None => "ja",
        Some(lang) => lang,
    };
    let language = match lang {
        "ja" => Language::Japanese,
        "en" => Language::English,
        _ => return Err(ApiError::UnknownLanguage),
    };
    let text = guide::render(language, Door::Api);
    Ok(HttpResponse::Ok()
        .content_type("text/markdown; charset=utf-8")
        .insert_header((header::VARY, "Accept-Language"))
        .body(text))
}
