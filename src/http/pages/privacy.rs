//! `GET /privacy`: the privacy policy a shared GPT links to, for anyone to read without a token.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::language;
use super::respond::{html_answer, page};
use super::views::{FILE_POLICY, Privacy, PrivacyPage};
use crate::http::state::AppState;

pub async fn privacy(req: HttpRequest, app: web::Data<AppState>) -> HttpResponse {
    match &app.site.privacy {
        Privacy::File(html) => html_answer(StatusCode::OK, FILE_POLICY, html.clone()),
        Privacy::Written { store, contact } => {
            // Any other parameter is ignored: a policy link may carry what it likes.
            let chosen = url::form_urlencoded::parse(req.query_string().as_bytes())
                .find_map(|(name, value)| (name == "lang").then_some(value));
            let t = language(&req, chosen.as_deref());
            let retention = &app.memory.rules().retention;
            let sign_in = app.oauth.is_some();
            let policy = PrivacyPage::new(t, *store, contact.as_ref(), retention, sign_in);
            page(StatusCode::OK, &policy, &[])
        }
    }
}
