import { captureLogLines, logger, setLogLevel, withLogContext } from './index';
import type * as LoggerModule from './index';

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

  it('when metadata carries message or level, then the line keeps its own and the field is renamed', () => {
    const [line] = captureLines(() =>
      logger.warn('provider failed', { message: 'upstream said no', level: 'debug', reason: 'provider_error' }),
    );
    expect(line).toMatchObject({
      message: 'provider failed',
      level: 'warn',
      meta_message: 'upstream said no',
      meta_level: 'debug',
      reason: 'provider_error',
    });
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

  it('when a line is below the level, then it is dropped before its metadata is read', () => {
    setLogLevel('warn');
    let read = 0;
    const meta = Object.defineProperty({}, 'detail', { enumerable: true, get: () => (read += 1) });
    try {
      expect(captureLines(() => logger.info('not written', meta))).toEqual([]);
      expect(read).toBe(0);
      expect(captureLines(() => logger.warn('written', meta))).toMatchObject([{ message: 'written', detail: 1 }]);
    } finally {
      setLogLevel('debug');
    }
  });
});

describe('the level', () => {
  it('when the module loads, then it writes from info whatever LOG_LEVEL says, until an entry point sets the configured level', () => {
    const before = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'silent';
    try {
      jest.isolateModules(() => {
        const fresh = jest.requireActual<typeof LoggerModule>('./index');
        const capture = fresh.captureLogLines();
        try {
          fresh.logger.debug('below info');
          fresh.logger.info('before the configuration');
          fresh.setLogLevel('error');
          fresh.logger.warn('below the configured level');
          fresh.logger.error('at the configured level');
        } finally {
          capture.stop();
        }
        expect(capture.lines.map((l) => l.message)).toEqual(['before the configuration', 'at the configured level']);
      });
    } finally {
      if (before === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = before;
    }
  });
});
