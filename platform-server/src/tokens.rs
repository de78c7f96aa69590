//! Routes of the token listing: `GET /token/v1`, the tokens of the caller's tenant (an admin's
//! call), as `platform token list` prints them. Tokens are made and revoked on the command line.

use crate::endpoint::{AnswerDoc, Endpoint, Verb};
use crate::error::ApiError;
use crate::negotiate::listed;
use crate::request::{Caller, Query};
use actix_web::HttpResponse;

/// The token routes (before the generic ones).
pub(crate) const ENDPOINTS: &[Endpoint] = &[Endpoint::new(
    Verb::Get,
    "/token/v1",
    "The tokens of the caller's tenant (admin): who each is for, the role it acts with, when it \
     was made and revoked; never the token itself",
    |r| r.to(list),
)
.query(&["tenant"])
.answer(AnswerDoc::List)];

async fn list(caller: Caller, Query(params): Query) -> Result<HttpResponse, ApiError> {
    let tenant = params.get("tenant").map(str::to_string);
    let tokens = caller
        .run(move |p, who| p.tenancy().tokens_of(who, tenant.as_deref()))
        .await?;
    let items: Vec<serde_json::Value> = tokens.iter().map(|t| t.to_json()).collect();
    let total = items.len() as u64;
    Ok(listed(items, total))
}
