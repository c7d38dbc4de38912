//! The SMB2/3 client, step by step, against the lab's smbd: so far, NEGOTIATE of every dialect.

mod common;

use common::*;
use sharebench::target::credentials::Secret;
use sharebench::target::smb::negotiate::negotiate;
use sharebench::target::smb::open_session;
use sharebench::target::smb::session::Credentials;
use sharebench::target::smb::transport::Transport;
use sharebench::target::smb::wire::{dialect_name, DIALECTS};
use std::net::SocketAddr;
use std::time::Duration;

#[test]
fn every_dialect_negotiates_with_smbd() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr: SocketAddr = format!(
        "{}:{}",
        env["SHAREBENCH_SERVER_ADDR"], env["SHAREBENCH_SMB_PORT"]
    )
    .parse()
    .unwrap();
    let outcomes = in_client_namespace(&lab, move || {
        let connect = || Transport::connect(addr, Duration::from_secs(10)).unwrap();
        let pinned: Vec<_> = DIALECTS
            .iter()
            .map(|&d| (d, negotiate(&mut connect(), &[d])))
            .collect();
        let all = negotiate(&mut connect(), &DIALECTS);
        (pinned, all)
    });
    let (pinned, all) = outcomes;
    for (dialect, outcome) in pinned {
        let negotiated = outcome.unwrap_or_else(|e| panic!("{}: {e}", dialect_name(dialect)));
        assert_eq!(
            negotiated.dialect, dialect,
            "the pinned dialect is the one chosen"
        );
        assert!(
            negotiated.max_read >= 64 << 10 && negotiated.max_write >= 64 << 10,
            "{}: {negotiated:?}",
            dialect_name(dialect)
        );
        assert!(
            !negotiated.security_blob.is_empty(),
            "smbd starts SPNEGO in its answer"
        );
        if dialect == 0x0311 {
            assert!(negotiated.cipher.is_some(), "a cipher is agreed on 3.1.1");
            assert_eq!(
                negotiated.exchanged.len(),
                2,
                "both messages kept for the preauth hash"
            );
        } else {
            assert_eq!(negotiated.cipher, None);
        }
    }
    assert_eq!(
        all.unwrap().dialect,
        0x0311,
        "offered all, smbd picks the newest"
    );
}

#[test]
fn sessions_authenticate_and_connect_the_share_on_every_dialect() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr: SocketAddr = format!(
        "{}:{}",
        env["SHAREBENCH_SERVER_ADDR"], env["SHAREBENCH_SMB_PORT"]
    )
    .parse()
    .unwrap();
    let password = env["SHAREBENCH_PASSWORD"].clone();
    let host = env["SHAREBENCH_SERVER_ADDR"].clone();
    let outcomes = in_client_namespace(&lab, move || {
        let who = Credentials {
            domain: None,
            user: Some("sharebench".into()),
            password: Some(Secret::new(password)),
        };
        DIALECTS
            .iter()
            .map(|&d| {
                open_session(
                    addr,
                    &host,
                    "bench",
                    &[d],
                    &who,
                    false,
                    Duration::from_secs(10),
                )
                .map(|(c, s)| (c.tree_id, s.info.guest))
                .map_err(|e| e.to_string())
            })
            .collect::<Vec<_>>()
    });
    for (dialect, outcome) in DIALECTS.iter().zip(outcomes) {
        let (tree, guest) = outcome.unwrap_or_else(|e| panic!("{}: {e}", dialect_name(*dialect)));
        assert_ne!(tree, 0);
        assert!(!guest);
    }
}
