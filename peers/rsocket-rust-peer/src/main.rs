// Connects to a server that keeps the echo contract (Sluice's `sluice server`, or
// rsocket-java-peer), sends a metadata push, then asks `stats` for the last metadata push seen.
// Usage: rsocket-rust-peer tcp|ws HOST:PORT|ws://HOST:PORT/PATH
use rsocket_rust::prelude::*;
use rsocket_rust::Client;
use rsocket_rust::Result;
use rsocket_rust_transport_tcp::TcpClientTransport;
use rsocket_rust_transport_websocket::WebsocketClientTransport;
use std::time::Duration;

async fn run(client: &Client, marker: &str) -> Result<String> {
    client
        .metadata_push(Payload::builder().set_metadata_utf8(marker).build())
        .await?;
    // A request-response after the push: the server reads frames in order.
    let res = client
        .request_response(Payload::builder().set_data_utf8("stats").build())
        .await?;
    Ok(res
        .and_then(|p| p.data_utf8().map(|s| s.to_string()))
        .unwrap_or_default())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: rsocket-rust-peer tcp|ws ADDRESS");
        std::process::exit(2);
    }
    let marker = "pushed-by-rsocket-rust";
    let connect = async {
        match args[1].as_str() {
            "tcp" => {
                RSocketFactory::connect()
                    .transport(TcpClientTransport::from(args[2].as_str()))
                    .start()
                    .await
            }
            _ => {
                RSocketFactory::connect()
                    .transport(WebsocketClientTransport::from(args[2].as_str()))
                    .start()
                    .await
            }
        }
    };
    let client = tokio::time::timeout(Duration::from_secs(10), connect)
        .await
        .expect("connect timed out")?;
    let stats = tokio::time::timeout(Duration::from_secs(10), run(&client, marker))
        .await
        .expect("no answer within 10 s")?;
    println!("stats: {}", stats);
    if stats.contains(&format!("mp={}", marker)) {
        println!("PASS metadata-push arrived");
        Ok(())
    } else {
        println!("FAIL metadata-push did not arrive");
        std::process::exit(1);
    }
}
