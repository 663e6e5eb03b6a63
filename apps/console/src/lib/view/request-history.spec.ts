import { describe, expect, it } from 'vitest';
import type { ProtocolState } from '@ahp/protocol';
import { csvCell, historyCsv, historyRow, requestSummary } from './request-history';

const toolApproval: ProtocolState = {
  request_id: 'req_tool_1',
  type: 'tool_approval',
  sender: 'careful',
  target: { kind: 'operators' },
  status: 'approved',
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:01:00.000Z',
  decided_by: 'op-alice',
  decided_at: '2026-11-26T10:01:00.000Z',
  feedback: 'only the tmp folder',
  modified_input: { command: 'rm -rf build/tmp' },
  payload: { tool: 'bash', input: { command: 'rm -rf build' }, input_digest: 'a'.repeat(64) },
};

describe('request history', () => {
  it('says what each kind of request asked for', () => {
    expect(requestSummary(toolApproval)).toBe('bash {"command":"rm -rf build"}');
    expect(
      requestSummary({
        ...toolApproval,
        modified_input: undefined,
        type: 'plan_approval',
        payload: { plan: { title: 'Migrate orders', steps: [{ id: 's1', description: 'copy' }] } },
      } as ProtocolState),
    ).toBe('plan "Migrate orders" (1 steps)');
    expect(requestSummary({ ...toolApproval, modified_input: undefined, type: 'shutdown', payload: { reason: 'done' } } as ProtocolState)).toBe('shut down: done');
    expect(requestSummary({ ...toolApproval, payload: { ...toolApproval.payload, input: { blob: 'x'.repeat(500) } } } as ProtocolState).length).toBe(200);
  });

  it('keeps who decided, the feedback and the edited input', () => {
    expect(historyRow(toolApproval)).toMatchObject({
      decidedBy: 'op-alice',
      feedback: 'only the tmp folder',
      input: '{"command":"rm -rf build"}',
      editedInput: '{"command":"rm -rf build/tmp"}',
    });
  });

  it('writes CSV that a spreadsheet reads as text, whatever an agent put in it', () => {
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\nbye')).toBe('"say ""hi""\nbye"');
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    const csv = historyCsv([historyRow(toolApproval)]);
    const [header, line] = csv.split('\r\n');
    expect(header).toBe('request_id,type,status,sender,what,created_at,decided_at,decided_by,feedback,input,edited_input');
    expect(line).toContain('op-alice');
    expect(line).toContain('"{""command"":""rm -rf build/tmp""}"');
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});
