import { captureLogLines, logger, setLogLevel, withLogContext } from './index';

function captureLines(fn: () => void): Array<Record<string, unknown>> {
  const capture = captureLogLines();
  try {
    fn();
  } finally {
    capture.stop();
  }
  return capture.lines;
}

describe('logger', () => {
  beforeAll(() => setLogLevel('debug'));
  afterAll(() => setLogLevel(process.env.LOG_LEVEL ?? 'info'));

  it('when metadata carries message or level, then the line keeps its own and the field is renamed', () => {
    const [line] = captureLines(() => logger.warn('provider failed', { message: 'upstream said no', level: 'debug', reason: 'provider_error' }));
    expect(line).toMatchObject({ message: 'provider failed', level: 'warn', meta_message: 'upstream said no', meta_level: 'debug', reason: 'provider_error' });
  });

  it('when the message holds a format token, then the metadata is still written', () => {
    const [line] = captureLines(() => logger.info('100%s sure', { count: 3 }));
    expect(line).toMatchObject({ message: '100%s sure', count: 3 });
  });

  it('when an Error is the metadata, then it is written under error and the message is untouched', () => {
    const [line] = captureLines(() => logger.error('boom', new Error('inner') as unknown as object));
    expect(line?.message).toBe('boom');
    expect(line?.error).toMatchObject({ message: 'inner' });
  });

  it('when written inside a log context, then the ids come along and secrets are redacted', () => {
    const [line] = captureLines(() =>
      withLogContext({ requestId: 'req_1', jobId: 'job_1' }, () => logger.info('hello', { apiKey: 'lg_live_abc', note: 'Bearer xyz' })),
    );
    expect(line).toMatchObject({ requestId: 'req_1', jobId: 'job_1', apiKey: '[redacted]', note: '[redacted]' });
  });
});
