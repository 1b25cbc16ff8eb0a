import * as zlib from 'zlib';
import { isForbiddenAddress } from './address-guard';
import { FetchError, safeFetch, type LookupFn, type NetworkPolicy, type SafeFetchOptions } from './safe-fetch';
import { html, loopbackLookup, redirect, startFakeSite, streamHuge, type FakeSite } from '@leadgen/testing';

// Production rules, except that 127.0.0.1 plays a public host: hops can then be checked end to end
// while every real connection stays on loopback.
const loopbackIsPublic: NetworkPolicy = {
  isForbiddenAddress: (ip) => ip !== '127.0.0.1' && isForbiddenAddress(ip),
  isAllowedPort: () => true,
};

const MiB = 1024 * 1024;

function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    policy: loopbackIsPublic,
    lookup: loopbackLookup(),
    userAgent: 'LeadgenBot/1.0 (test)',
    accept: 'text/html',
    maxBytes: MiB,
    maxRedirects: 5,
    signal: new AbortController().signal,
    wantsBody: (type) => type === 'text/html',
    ...overrides,
  };
}

async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

describe('safeFetch', () => {
  let site: FakeSite;
  let other: FakeSite;
  const huge = { written: 0, finished: false };
  const bomb = zlib.gzipSync(Buffer.alloc(50 * MiB, ' '));

  beforeAll(async () => {
    other = await startFakeSite((_request, response) => html(response, 'other'));
    site = await startFakeSite((request, response) => {
      const path = request.url ?? '/';
      if (path === '/hello') return html(response, '<p>hello</p>');
      if (path === '/huge') return streamHuge(response, '<html>', 20 * MiB, '</html>', huge);
      if (path === '/bomb') {
        response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' });
        return response.end(bomb);
      }
      if (path === '/deflate' || path === '/br') {
        const body = Buffer.from('<p>compressed ä</p>');
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': path === '/br' ? 'br' : 'deflate' });
        return response.end(path === '/br' ? zlib.brotliCompressSync(body) : zlib.deflateSync(body));
      }
      if (path === '/latin1') {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=iso-8859-1' });
        return response.end(Buffer.from([0x3c, 0x70, 0x3e, 0xfc, 0x3c, 0x2f, 0x70, 0x3e]));
      }
      if (path === '/image') {
        response.writeHead(200, { 'Content-Type': 'image/png' });
        return response.end(Buffer.alloc(1000));
      }
      if (path === '/loop') return redirect(response, '/loop');
      if (path === '/to-internal') return redirect(response, `http://internal.example:${other.port}/`);
      if (path === '/to-ftp') return redirect(response, 'ftp://files.example/secret');
      return html(response, 'missing', 404);
    });
  });

  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it('when a page is fetched, then it sends our User-Agent, Accept and Host and connects to the checked address', async () => {
    const lookup = jest.fn(loopbackLookup());
    const response = await safeFetch(`http://shop.example:${site.port}/hello`, options({ lookup }));
    expect(response.body).toBe('<p>hello</p>');
    expect(lookup).toHaveBeenCalledTimes(1);
    const seen = site.requests.at(-1);
    expect(seen?.headers['user-agent']).toBe('LeadgenBot/1.0 (test)');
    expect(seen?.headers.accept).toBe('text/html');
    expect(seen?.host).toBe(`shop.example:${site.port}`);
  });

  it('when DNS would answer differently on a second resolution (rebinding), then the connection still uses the first, checked answer', async () => {
    let calls = 0;
    const rebinding: LookupFn = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
    const response = await safeFetch(`http://rebind.example:${site.port}/hello`, options({ lookup: rebinding }));
    expect(response.body).toBe('<p>hello</p>');
    expect(calls).toBe(1);
  });

  it('when any resolved address is private, then the request is refused without connecting', async () => {
    const before = site.connections;
    const lookup = loopbackLookup({ 'mixed.example': ['127.0.0.1', '10.0.0.5'] });
    expect((await fetchError(safeFetch(`http://mixed.example:${site.port}/hello`, options({ lookup })))).code).toBe('forbidden_address');
    expect(site.connections).toBe(before);
  });

  it('when a public hop redirects to a host resolving to a private address, then the redirect is refused before connecting', async () => {
    const lookup = loopbackLookup({ 'internal.example': ['127.0.0.1', '192.168.1.20'] });
    expect((await fetchError(safeFetch(`http://public.example:${site.port}/to-internal`, options({ lookup })))).code).toBe(
      'forbidden_address',
    );
    expect(other.connections).toBe(0);
  });

  it('when the port is not allowed by the policy, then the request is refused without connecting', async () => {
    const before = site.connections;
    const policy = { ...loopbackIsPublic, isAllowedPort: (port: number) => port === 80 || port === 443 };
    expect((await fetchError(safeFetch(`http://shop.example:${site.port}/hello`, options({ policy })))).code).toBe('forbidden_port');
    expect(site.connections).toBe(before);
  });

  it('when a URL or a redirect uses another scheme, then it is refused', async () => {
    expect((await fetchError(safeFetch('file:///etc/passwd', options()))).code).toBe('unsupported_scheme');
    expect((await fetchError(safeFetch(`http://shop.example:${site.port}/to-ftp`, options()))).code).toBe('unsupported_scheme');
  });

  it('when redirects loop, then exactly maxRedirects are followed before giving up', async () => {
    const before = site.paths().filter((path) => path === '/loop').length;
    expect((await fetchError(safeFetch(`http://shop.example:${site.port}/loop`, options({ maxRedirects: 3 })))).code).toBe(
      'too_many_redirects',
    );
    expect(site.paths().filter((path) => path === '/loop').length - before).toBe(4);
  });

  it('when a body is 20 MB, then reading stops at maxBytes and the rest is never requested from the socket', async () => {
    const response = await safeFetch(`http://shop.example:${site.port}/huge`, options({ maxBytes: 64 * 1024 }));
    expect(response.truncated).toBe(true);
    expect(response.bytesRead).toBeLessThanOrEqual(64 * 1024);
    expect(response.body?.length).toBeLessThanOrEqual(64 * 1024);
    expect(huge.finished).toBe(false);
  });

  it('when a small gzip body expands enormously, then decompression stops at maxBytes', async () => {
    const response = await safeFetch(`http://shop.example:${site.port}/bomb`, options({ maxBytes: 64 * 1024 }));
    expect(response.truncated).toBe(true);
    expect(response.body?.length).toBe(64 * 1024);
  });

  it.each(['/deflate', '/br'])('when the body is compressed (%s), then it is decoded', async (path) => {
    const response = await safeFetch(`http://shop.example:${site.port}${path}`, options());
    expect(response.body).toBe('<p>compressed ä</p>');
  });

  it('when the response declares a legacy charset, then the text is decoded with it', async () => {
    expect((await safeFetch(`http://shop.example:${site.port}/latin1`, options())).body).toBe('<p>ü</p>');
  });

  it('when the media type is not wanted or the status is not 2xx, then no body is returned', async () => {
    const image = await safeFetch(`http://shop.example:${site.port}/image`, options());
    expect(image).toMatchObject({ status: 200, mediaType: 'image/png', body: null });
    const missing = await safeFetch(`http://shop.example:${site.port}/nothing`, options());
    expect(missing).toMatchObject({ status: 404, body: null });
  });

  it('when the signal is already aborted, then nothing is resolved or connected', async () => {
    const lookup = jest.fn(loopbackLookup());
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    expect(
      (await fetchError(safeFetch(`http://shop.example:${site.port}/hello`, options({ lookup, signal: controller.signal })))).code,
    ).toBe('aborted');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('when DNS fails, then the error says so', async () => {
    const lookup: LookupFn = () => Promise.reject(new Error('ENOTFOUND'));
    expect((await fetchError(safeFetch('http://nowhere.example/', options({ lookup })))).code).toBe('dns_failed');
  });
});
