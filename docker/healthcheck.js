/* global fetch, AbortSignal */
// The image's HEALTHCHECK: GET /readyz on this container's operations port. The one image runs the
// API (operations port 9464 by default) or a worker (9465): OPS_PORT, when set, says which.
const host = ['', '0.0.0.0', '::'].includes(process.env.OPS_HOST ?? '') ? '127.0.0.1' : process.env.OPS_HOST;
const ports = process.env.OPS_PORT ? [Number(process.env.OPS_PORT)] : [9464, 9465];

async function main() {
  if (ports[0] === 0) {
    console.log('operations port disabled (OPS_PORT=0): nothing to check');
    return 0;
  }
  for (const port of ports) {
    let res;
    try {
      res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/readyz`, { signal: AbortSignal.timeout(4000) });
    } catch {
      continue; // not this process's port
    }
    console.log(`${port}: ${res.status} ${await res.text()}`);
    return res.ok ? 0 : 1;
  }
  console.log(`no operations port answers on ${host}:${ports.join(', ')}`);
  return 1;
}

main().then((code) => process.exit(code));
