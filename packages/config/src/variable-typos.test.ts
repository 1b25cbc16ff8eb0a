import { unknownVariableWarnings } from './variable-typos';

describe('variables that look like ours', () => {
  it("when a declared name is misspelt or an unknown one has our prefix, then one warning naming the likely one; other software's variables pass", () => {
    expect(
      unknownVariableWarnings({
        SYNC_WAIT_MSS: '5',
        WEBHOOK_TIMEOUT: '1',
        PORTS: '1',
        PATH: '/bin',
        HOME: '/',
        NODE_OPTIONS: '',
        JOB_NAME: 'ci',
        HOSTNAME: 'h',
        SYNC_WAIT_MS: '5',
      }),
    ).toEqual([
      'warning: PORTS is not a leadgen variable and is ignored; did you mean PORT? (docs/configuration.md)',
      'warning: SYNC_WAIT_MSS is not a leadgen variable and is ignored; did you mean SYNC_WAIT_MS? (docs/configuration.md)',
      'warning: WEBHOOK_TIMEOUT is not a leadgen variable and is ignored; did you mean WEBHOOK_TIMEOUT_MS? (docs/configuration.md)',
    ]);
  });
});
