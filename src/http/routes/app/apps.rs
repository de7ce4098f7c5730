//! `POST /app/apps/disconnect`: the person revokes an app's grant; its tokens stop opening the
//! memory at once.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use super::{posted, see_other};
use crate::http::state::AppState;
use crate::oauth::connected::disconnect as revoke;

#[derive(Deserialize)]
pub(super) struct DisconnectForm {
    #[serde(default)]
    grant_id: String,
}

pub(super) async fn disconnect(
    req: HttpRequest,
    body: web::Payload,
    app: web::Data<AppState>,
) -> HttpResponse {
    let (visit, form) = match posted::<DisconnectForm>(&req, &app, body).await {
        Ok(posted) => posted,
        Err(answer) => return answer,
    };
    match revoke(
        app.grants.as_ref(),
        &visit.session.namespace,
        &form.grant_id,
    )
    .await
    {
        Ok(true) => see_other("/app?done=disconnected"),
        Ok(false) => see_other("/app?done=gone"),
        Err(err) => super::unavailable(visit.t, &err),
    }
}
