//! What every `GrantStore` must do. Each backend runs this whole suite through
//! [`grant_store_suite!`]. Records have fresh random ids, so backends may share one database.

use std::slice;
use std::sync::Arc;

use chrono::{DateTime, SubsecRound, TimeDelta, TimeZone, Utc};
use futures::future::join_all;
use kioku::credentials::Sessions;
use kioku::domain::Namespace;
use kioku::store::{Client, Credential, CredentialKind, Grant, GrantStore, Redeemed, TimeLimit};

fn fresh(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

/// Now, to the microsecond: what a store keeps of a time.
fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
}

fn client(secret_digest: Option<&str>) -> Client {
    Client {
        id: fresh("client"),
        name: "Claude 🎌 \"quoted\"".into(),
        secret_digest: secret_digest.map(str::to_owned),
        redirect_uris: vec![
            "https://chat.openai.com/aip/g-1/oauth/callback".into(),
            "http://127.0.0.1:33418/callback?x=1".into(),
        ],
        registered: secret_digest.is_none(),
        created_at: now(),
        // A client that registered itself goes unless someone completes a grant for it.
        expires_at: secret_digest.is_none().then(|| now() + TimeDelta::days(1)),
    }
}

fn grant(namespace: &str, created_at: DateTime<Utc>) -> Grant {
    Grant {
        id: fresh("grant"),
        client_id: fresh("client"),
        client_name: Some("Claude (claude.ai)".into()),
        namespace: namespace.to_owned(),
        namespace_label: "token#3f2a".into(),
        signed_in_with: "token".into(),
        token_digest: Some("5e".repeat(32)),
        scope: "memory".into(),
        resource: Some("https://kioku.example/mcp".into()),
        created_at,
        expires_at: created_at + TimeDelta::days(30),
    }
}

fn credential(kind: CredentialKind, expires_at: DateTime<Utc>) -> Credential {
    Credential {
        digest: fresh("digest"),
        kind,
        grant_id: None,
        expires_at,
        used: false,
        body: r#"{"scope":"memory","pkce":"S256"}"#.into(),
    }
}

/// `credential` as a store keeps it after issuing it under `grant`.
fn under(grant: &Grant, credential: &Credential) -> Credential {
    Credential {
        grant_id: Some(grant.id.clone()),
        ..credential.clone()
    }
}

/// A grant the store holds.
async fn stored_grant(store: &impl GrantStore) -> Grant {
    let held = grant(&fresh("ns"), now());
    store.put_grant(&held).await.unwrap();
    held
}

pub async fn clients_are_put_replaced_and_listed_a_page_at_a_time_by_id(store: &impl GrantStore) {
    let mut public = client(None);
    let confidential = client(Some("c2VjcmV0IGRpZ2VzdA"));
    store.put_client(&public).await.unwrap();
    store.put_client(&confidential).await.unwrap();
    assert_eq!(
        store.client(&public.id).await.unwrap(),
        Some(public.clone())
    );
    assert_eq!(
        store.client(&confidential.id).await.unwrap(),
        Some(confidential.clone())
    );

    public.name = "renamed".into();
    public.redirect_uris.clear();
    public.secret_digest = Some("bmV3".into());
    store.put_client(&public).await.unwrap();
    assert_eq!(
        store.client(&public.id).await.unwrap(),
        Some(public.clone())
    );
    assert_eq!(store.client(&fresh("client")).await.unwrap(), None);

    // A page at a time, by id: ids under a prefix of their own, so that other tests' clients
    // sort before or after them.
    let prefix = fresh("paged");
    let mut mine = Vec::new();
    for (suffix, secret) in [("a", None), ("b", Some("c2VjcmV0")), ("c", None)] {
        let held = Client {
            id: format!("{prefix}-{suffix}"),
            ..client(secret)
        };
        store.put_client(&held).await.unwrap();
        mine.push(held);
    }
    let first = store.clients(Some(&prefix), 2).await.unwrap();
    assert_eq!(first, mine[..2]);
    let next = store.clients(Some(&first[1].id), 2).await.unwrap();
    assert_eq!(next.first(), Some(&mine[2]), "{next:?}");
    assert!(next.len() <= 2 && next.is_sorted_by(|a, b| a.id < b.id));
}

pub async fn grants_are_listed_by_namespace_oldest_first(store: &impl GrantStore) {
    let (ns, other) = (fresh("ns"), fresh("ns"));
    let at = now();
    let mut newer = grant(&ns, at);
    // Written by an earlier kioku: no client name.
    let older = Grant {
        client_name: None,
        resource: None,
        signed_in_with: "https://accounts.google.com".into(),
        token_digest: None,
        ..grant(&ns, at - TimeDelta::hours(1))
    };
    let elsewhere = grant(&other, at - TimeDelta::hours(2));
    for held in [&newer, &older, &elsewhere] {
        store.put_grant(held).await.unwrap();
    }
    assert_eq!(store.grant(&older.id).await.unwrap(), Some(older.clone()));

    newer.scope = "memory:read".into();
    store.put_grant(&newer).await.unwrap();
    assert_eq!(store.grant(&newer.id).await.unwrap(), Some(newer.clone()));

    assert_eq!(store.grants(&ns).await.unwrap(), [older, newer]);
    assert_eq!(store.grants(&other).await.unwrap(), [elsewhere]);
    assert!(store.grants(&fresh("ns")).await.unwrap().is_empty());
    assert_eq!(store.grant(&fresh("grant")).await.unwrap(), None);
}

pub async fn issuing_writes_the_credentials_and_moves_the_expiry(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let later = held.expires_at + TimeDelta::days(1);
    let issued = [
        credential(CredentialKind::AccessToken, now() + TimeDelta::hours(1)),
        credential(CredentialKind::RefreshToken, later),
    ];
    assert!(store.issue(&held.id, later, &issued).await.unwrap());
    for sent in &issued {
        let kept = store.credential(&sent.digest).await.unwrap();
        assert_eq!(kept, Some(under(&held, sent)));
    }
    let moved = store.grant(&held.id).await.unwrap().unwrap();
    assert_eq!(moved.expires_at, later);
    assert_eq!(
        moved,
        Grant {
            expires_at: later,
            ..held
        }
    );
}

pub async fn a_revoked_grant_issues_nothing(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let later = held.expires_at + TimeDelta::days(1);
    assert!(store.revoke_grant(&held.id).await.unwrap());
    let late = credential(CredentialKind::AccessToken, later);
    assert!(
        !store
            .issue(&held.id, later, slice::from_ref(&late))
            .await
            .unwrap()
    );
    assert_eq!(store.credential(&late.digest).await.unwrap(), None);
    assert_eq!(store.grant(&held.id).await.unwrap(), None);
    assert!(!store.issue(&fresh("grant"), later, &[]).await.unwrap());
}

/// A digest already held fails the issue, which then writes nothing at all.
pub async fn an_issue_that_fails_writes_nothing(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let taken = credential(CredentialKind::SignIn, now());
    store.put_credential(&taken).await.unwrap();
    let fresh_one = credential(CredentialKind::AccessToken, now());
    let later = held.expires_at + TimeDelta::days(1);
    let clash = Credential {
        kind: CredentialKind::RefreshToken,
        ..taken.clone()
    };
    let issued = store
        .issue(&held.id, later, &[fresh_one.clone(), clash])
        .await;
    assert!(issued.is_err(), "{issued:?}");
    assert_eq!(store.credential(&fresh_one.digest).await.unwrap(), None);
    assert_eq!(store.credential(&taken.digest).await.unwrap(), Some(taken));
    assert_eq!(store.grant(&held.id).await.unwrap(), Some(held));
}

pub async fn revoking_deletes_the_grant_and_every_credential_under_it(store: &impl GrantStore) {
    let ns = fresh("ns");
    let (revoked, kept) = (grant(&ns, now()), grant(&ns, now()));
    store.put_grant(&revoked).await.unwrap();
    store.put_grant(&kept).await.unwrap();
    let expiry = revoked.expires_at;
    let issued: Vec<Credential> = [CredentialKind::AccessToken, CredentialKind::RefreshToken]
        .into_iter()
        .map(|kind| credential(kind, expiry))
        .collect();
    let code = credential(CredentialKind::AuthorizationCode, expiry);
    assert!(
        store
            .issue(&revoked.id, expiry, slice::from_ref(&code))
            .await
            .unwrap()
    );
    assert!(store.issue(&revoked.id, expiry, &issued).await.unwrap());
    let other = credential(CredentialKind::AccessToken, expiry);
    let kept_expiry = kept.expires_at;
    assert!(
        store
            .issue(&kept.id, kept_expiry, slice::from_ref(&other))
            .await
            .unwrap()
    );

    assert!(store.revoke_grant(&revoked.id).await.unwrap());
    assert_eq!(store.grant(&revoked.id).await.unwrap(), None);
    for gone in issued.iter().chain([&code]) {
        assert_eq!(store.credential(&gone.digest).await.unwrap(), None);
    }
    assert_eq!(store.grants(&ns).await.unwrap(), slice::from_ref(&kept));
    let other_kept = store.credential(&other.digest).await.unwrap();
    assert_eq!(other_kept, Some(under(&kept, &other)));
    assert!(!store.revoke_grant(&revoked.id).await.unwrap());
}

pub async fn a_credential_is_redeemed_once(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let code = credential(CredentialKind::AuthorizationCode, now());
    assert!(
        store
            .issue(&held.id, held.expires_at, slice::from_ref(&code))
            .await
            .unwrap()
    );
    let used = Credential {
        used: true,
        ..under(&held, &code)
    };
    let first = store.redeem(&code.digest, None).await.unwrap();
    assert_eq!(first, Redeemed::First(used.clone()));
    let again = store.redeem(&code.digest, None).await.unwrap();
    assert_eq!(again, Redeemed::Again(used.clone()));
    assert_eq!(store.credential(&code.digest).await.unwrap(), Some(used));
    let unknown = store.redeem(&fresh("digest"), None).await.unwrap();
    assert_eq!(unknown, Redeemed::Unknown);
}

/// A rotated refresh token is kept only until the end of its race window: the redeem that
/// marks it moves its expiry there (where the purge, tested above, takes it), a later one
/// leaves it, and its grant keeps its own.
pub async fn a_credential_redeemed_to_be_kept_briefly_expires_then(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let refresh = credential(CredentialKind::RefreshToken, held.expires_at);
    assert!(
        store
            .issue(&held.id, held.expires_at, slice::from_ref(&refresh))
            .await
            .unwrap()
    );
    let until = now() + TimeDelta::seconds(10);
    let kept = Credential {
        used: true,
        expires_at: until,
        ..under(&held, &refresh)
    };
    let first = store.redeem(&refresh.digest, Some(until)).await.unwrap();
    assert_eq!(first, Redeemed::First(kept.clone()));
    let later = until + TimeDelta::seconds(50);
    let again = store.redeem(&refresh.digest, Some(later)).await.unwrap();
    assert_eq!(again, Redeemed::Again(kept.clone()));
    assert_eq!(store.credential(&refresh.digest).await.unwrap(), Some(kept));
    assert_eq!(store.grant(&held.id).await.unwrap(), Some(held));
}

pub async fn of_concurrent_redeems_exactly_one_is_first(store: &impl GrantStore) {
    let held = stored_grant(store).await;
    let refresh = credential(CredentialKind::RefreshToken, held.expires_at);
    assert!(
        store
            .issue(&held.id, held.expires_at, slice::from_ref(&refresh))
            .await
            .unwrap()
    );
    let outcomes = join_all((0..8).map(|_| store.redeem(&refresh.digest, None))).await;
    let mut firsts = 0;
    for outcome in outcomes {
        match outcome.unwrap() {
            Redeemed::First(_) => firsts += 1,
            Redeemed::Again(_) => {}
            Redeemed::Unknown => panic!("the credential was found unknown"),
        }
    }
    assert_eq!(firsts, 1);
}

/// A sign-in under way is a credential of no grant; it is never replaced, so a used one stays
/// used.
pub async fn a_grantless_credential_round_trips_and_is_never_replaced(store: &impl GrantStore) {
    let sign_in = credential(CredentialKind::SignIn, now() + TimeDelta::minutes(10));
    store.put_credential(&sign_in).await.unwrap();
    let kept = store.credential(&sign_in.digest).await.unwrap();
    assert_eq!(kept, Some(sign_in.clone()));
    let used = Credential {
        used: true,
        ..sign_in.clone()
    };
    assert_eq!(
        store.redeem(&sign_in.digest, None).await.unwrap(),
        Redeemed::First(used.clone())
    );
    assert!(store.put_credential(&sign_in).await.is_err());
    assert_eq!(store.credential(&sign_in.digest).await.unwrap(), Some(used));
}

/// Records in a window of the year 2000, which only this test uses, so that the count is this
/// test's alone on a shared database.
pub async fn purging_removes_what_expired_and_keeps_the_rest(store: &impl GrantStore) {
    let at = |month: u32| Utc.with_ymd_and_hms(2000, month, 1, 0, 0, 0).unwrap();
    let cutoff = at(6);
    // What an earlier run may have left in the window.
    store.purge_expired(cutoff).await.unwrap();
    let ns = fresh("ns");
    let expired = Grant {
        expires_at: at(2),
        ..grant(&ns, at(1))
    };
    let live = Grant {
        expires_at: at(12),
        ..grant(&ns, at(1))
    };
    store.put_grant(&expired).await.unwrap();
    store.put_grant(&live).await.unwrap();
    let stale = credential(CredentialKind::AccessToken, at(3));
    let fresh_one = credential(CredentialKind::RefreshToken, at(12));
    let issue = [stale.clone(), fresh_one.clone()];
    assert!(
        store
            .issue(&live.id, live.expires_at, &issue)
            .await
            .unwrap()
    );
    let abandoned = credential(CredentialKind::SignIn, at(4));
    store.put_credential(&abandoned).await.unwrap();
    // A client nobody completed a grant for, one still in its first day, and one kept.
    let unused = Client {
        expires_at: Some(at(2)),
        ..client(None)
    };
    let new = Client {
        expires_at: Some(at(12)),
        ..client(None)
    };
    let operators = client(Some("digest"));
    for held in [&unused, &new, &operators] {
        store.put_client(held).await.unwrap();
    }

    assert_eq!(store.purge_expired(cutoff).await.unwrap(), 4);
    assert_eq!(store.client(&unused.id).await.unwrap(), None);
    assert_eq!(store.client(&new.id).await.unwrap().as_ref(), Some(&new));
    assert_eq!(
        store.client(&operators.id).await.unwrap().as_ref(),
        Some(&operators)
    );
    assert_eq!(store.grant(&expired.id).await.unwrap(), None);
    assert_eq!(store.credential(&stale.digest).await.unwrap(), None);
    assert_eq!(store.credential(&abandoned.digest).await.unwrap(), None);
    assert_eq!(store.grants(&ns).await.unwrap(), slice::from_ref(&live));
    let kept = store.credential(&fresh_one.digest).await.unwrap();
    assert_eq!(kept, Some(under(&live, &fresh_one)));
    assert_eq!(store.purge_expired(cutoff).await.unwrap(), 0);
}

/// The memory page's sessions, kept here as credentials: a session one instance opened is
/// found by another until it is closed or expires, and the store never holds its value.
pub async fn page_sessions_are_found_until_closed(store: &(impl GrantStore + Clone + 'static)) {
    let limit = TimeLimit::new(std::time::Duration::from_secs(8));
    let instance = || Sessions::new(Arc::new(store.clone()), TimeDelta::hours(1), limit);
    let ns = Namespace::named(&fresh("ns")).unwrap();
    let (value, opened) = instance().open(&ns, Some(&"5e".repeat(32))).await.unwrap();
    let found = instance().find(&value).await.unwrap().expect("found");
    assert_eq!((&found.namespace, &found.csrf), (&ns, &opened.csrf));
    assert_eq!(store.credential(&value).await.unwrap(), None);
    instance().close(&value).await.unwrap();
    assert!(instance().find(&value).await.unwrap().is_none());
    let ended = Sessions::new(Arc::new(store.clone()), TimeDelta::seconds(-1), limit);
    let (value, _) = ended.open(&ns, None).await.unwrap();
    assert!(instance().find(&value).await.unwrap().is_none());
}

/// Instantiates every `GrantStore` test for one backend, as
/// [`conformance_suite!`](crate::conformance_suite) does the `MemoryStore` tests.
#[macro_export]
macro_rules! grant_store_suite {
    ($make:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let Some((store, _guard)) = $make.await else {
                    return;
                };
                $crate::grants::$case(&store).await;
            }
        )+
    };
    ($make:expr) => {
        $crate::grant_store_suite!($make;
            clients_are_put_replaced_and_listed_a_page_at_a_time_by_id,
            grants_are_listed_by_namespace_oldest_first,
            issuing_writes_the_credentials_and_moves_the_expiry,
            a_revoked_grant_issues_nothing,
            an_issue_that_fails_writes_nothing,
            revoking_deletes_the_grant_and_every_credential_under_it,
            a_credential_is_redeemed_once,
            a_credential_redeemed_to_be_kept_briefly_expires_then,
            of_concurrent_redeems_exactly_one_is_first,
            a_grantless_credential_round_trips_and_is_never_replaced,
            purging_removes_what_expired_and_keeps_the_rest,
            page_sessions_are_found_until_closed,
        );
    };
}
