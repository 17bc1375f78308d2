// Launch Debian's Chromium headless with WebGPU enabled (SwiftShader when there is no GPU).
import { chromium } from 'playwright-core';

const options = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless=new', '--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--no-first-run', '--disable-quic',
  ],
};

export async function launch() {
  return chromium.launch(options);
}

// A browser with a real profile in `dir` (not incognito): storage persists as for a learner, and
// Chromium reports the site as installable.
export async function launchProfile(dir) {
  return chromium.launchPersistentContext(dir, options);
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
