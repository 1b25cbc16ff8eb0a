import { answerWithin } from './time-limit';

describe('answerWithin', () => {
  it('when the work answers in time, then its value, and no timer is left behind', async () => {
    jest.useFakeTimers();
    try {
      await expect(answerWithin(1_000, Promise.resolve('pong'))).resolves.toBe('pong');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('when the work does not answer in time, then a rejection that names who did not answer', async () => {
    await expect(answerWithin(20, new Promise(() => undefined), 'redis')).rejects.toThrow('redis did not answer within 20 ms');
  });

  it('when the work fails first, then its own error', async () => {
    await expect(answerWithin(1_000, Promise.reject(new Error('ECONNREFUSED')))).rejects.toThrow('ECONNREFUSED');
  });
});
