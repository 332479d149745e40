import { describe, expect, it } from 'vitest';
import { toolCallsOf } from '../../src/trajectories/collect/tool-format.js';
import { chatMessages, flagKinds, selectTrajectories } from '../../src/trajectories/export.js';
import { baseReport, type GradeReport } from '../../src/reward/report.js';
import { auditLines, flag, integrityLines, reportFindings, type Flag } from '../../src/reward/findings.js';
import { TRAJECTORY_FORMAT, type Trajectory, type TrajectoryStep } from '../../src/trajectories/trajectory-format.js';

const reply = (content: string) => ({ content, reasoning: '', toolCalls: [], finishReason: 'stop' });

function step(index: number, tool: string, observation: string, content = ''): TrajectoryStep {
  return {
    type: 'step',
    index,
    call_id: tool ? `c${index}` : '',
    tool,
    arguments: tool === 'bash' ? { command: 'ls' } : {},
    observation,
    status: tool ? 'OK' : 'INVALID_ACTION',
    exit_code: 0,
    duration_s: 0,
    reward: 0,
    terminated: false,
    truncated: false,
    info: {},
    at: '',
    ...(content ? { assistant: { content, reasoning: '', model: '' } } : {}),
  };
}

function trajectory(id: string, task: string, endReason: string, resolved: boolean, steps: TrajectoryStep[]): Trajectory {
  return {
    file: `${id}.jsonl`,
    header: {
      type: 'episode',
      format: TRAJECTORY_FORMAT,
      episode_id: id,
      task_id: task,
      dataset: 'd',
      repo: 'r',
      base_commit: 'b',
      group_id: '',
      seed: 0,
      options: {},
      server_id: 's',
      started_at: id,
      prompt: 'Fix it.',
      tools: [],
    },
    steps,
    end: { type: 'end', reward: resolved ? 1 : 0, resolved, end_reason: endReason, steps: steps.length, duration_s: 1, ended_at: '' },
  };
}

describe('collect tool formats', () => {
  it('text: the last fenced bash block is the command, `submit` alone submits, none is no call', () => {
    expect(toolCallsOf(reply('look:\n```bash\nls\n```\nthen\n```bash\ncat a.py\n```'), 'text', 3)).toEqual([
      { id: 'call_3', name: 'bash', argumentsJson: '{"command":"cat a.py"}' },
    ]);
    expect(toolCallsOf(reply('done\n```bash\nsubmit\n```'), 'text', 4)).toEqual([
      { id: 'call_4', name: 'submit_solution', argumentsJson: '{}' },
    ]);
    expect(toolCallsOf(reply('I think the bug is in a.py.'), 'text', 5)).toEqual([]);
  });
});

describe('export', () => {
  it('renders a reply without a tool call as assistant text and the reminder as a user message', () => {
    const t = trajectory('1', 't', 'submitted', true, [
      step(0, '', 'Invalid tool call: no tool name was given.', 'Hmm.'),
      step(1, 'bash', 'a.py\n', 'Listing.'),
      step(2, 'submit_solution', 'graded'),
    ]);
    expect(chatMessages(t).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(chatMessages(t)[1]).toEqual({ role: 'assistant', content: 'Hmm.' });
  });

  it('puts the calls of one model turn back into one assistant message', () => {
    const t = trajectory('1', 't', 'submitted', true, [
      { ...step(0, 'bash', 'one', 'Two things at once.'), turn: 0 },
      { ...step(1, 'bash', 'two'), turn: 0 },
      { ...step(2, 'submit_solution', 'graded', 'Done.'), turn: 1 },
    ]);
    const messages = chatMessages(t);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool']);
    const first = messages[1] as { tool_calls: Array<{ id: string }> };
    expect(first.tool_calls.map((c) => c.id)).toEqual(['c0', 'c1']);
    expect(messages.slice(2, 4).map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(['c0', 'c1']);
  });

  it('never exports what the environment or the model endpoint failed, nor unfinished ones; per-task keeps the first k', () => {
    const all = [
      trajectory('1', 'a', 'submitted', true, []),
      trajectory('2', 'a', 'submitted', false, []),
      trajectory('3', 'b', 'infra_error', false, []),
      trajectory('4', 'b', 'model_error', false, []),
      { ...trajectory('5', 'c', 'submitted', true, []), end: undefined },
    ];
    expect(selectTrajectories(all, {}).map((t) => t.header.episode_id)).toEqual(['1', '2']);
    expect(selectTrajectories(all, { resolvedOnly: true }).map((t) => t.header.episode_id)).toEqual(['1']);
    expect(selectTrajectories(all, { perTask: 1 }).map((t) => t.header.episode_id)).toEqual(['1']);
  });

  it("filters on the grading report's findings: integrity, and each audit finding's label", () => {
    const withFlags = (id: string, flags: Flag[]): Trajectory => {
      const t = trajectory(id, id, 'submitted', false, []);
      const report = {
        ...baseReport(id),
        integrityFlags: integrityLines(flags),
        auditFlags: auditLines(flags),
        findings: reportFindings(flags),
      };
      return { ...t, end: { ...t.end!, report } };
    };
    const all = [
      withFlags('1', []),
      withFlags('2', [flag('heap-walk', 'monitor: the heap walked from /testbed/x.py')]),
      withFlags('3', [
        flag('hidden-tests-readable', 'hidden tests readable by the code under test: semver_test.go'),
        flag('git-read', 'git: git object store read /testbed/.git/objects/ab'),
      ]),
    ];
    expect(selectTrajectories(all, { unflaggedOnly: true }).map((t) => t.header.episode_id)).toEqual(['1']);
    expect(selectTrajectories(all, { flag: 'integrity' }).map((t) => t.header.episode_id)).toEqual(['2']);
    expect(selectTrajectories(all, { flag: 'git' }).map((t) => t.header.episode_id)).toEqual(['3']);
    // The label, not the line's text before ':'.
    expect([...flagKinds(all[2]!)].sort()).toEqual(['git', 'hidden-tests']);
  });

  it('reads a report recorded before reports carried findings by its audit lines', () => {
    const t = trajectory('4', '4', 'submitted', false, []);
    const legacy: Partial<GradeReport> = { ...baseReport('4'), auditFlags: ['network: socket.connect', 'git: git object store read x'] };
    delete legacy.findings;
    const old = { ...t, end: { ...t.end!, report: legacy as GradeReport } };
    expect([...flagKinds(old)].sort()).toEqual(['git', 'network']);
  });
});
