use anyhow::{Context, Result};
use inference::bundle::Bundle;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The bundle file.
    #[arg(long)]
    bundle: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let bytes = std::fs::read(&a.bundle).with_context(|| format!("cannot read {}", a.bundle.display()))?;
    let b = Bundle::from_bytes(&bytes)?;
    let h = &b.header;
    println!("title        {}", h.title);
    println!("format       {} (builder {})", inference::bundle::FORMAT_VERSION, h.builder_version);
    println!("size         {} bytes", bytes.len());
    println!("files        {}", h.files);
    println!("sections     {}", h.sections);
    println!("chunks       {}", h.chunks);
    for tier in inference::index::Tier::ALL {
        println!("  {:<10} {}", tier.name(), b.chunks.iter().filter(|c| c.tier == tier).count());
    }
    match &h.encoder {
        Some(e) => println!("encoder      {} dim {} max {} tokens sha256 {} ({})", e.name, e.dim, e.max_tokens, e.sha256, h.embed_mode),
        None => println!("encoder      none (BM25 only)"),
    }
    println!("corpus       sha256 {}", h.corpus_checksum);
    Ok(())
}
