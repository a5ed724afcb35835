import { describe, expect, it } from 'vitest';
import { formatPaperFigure, PAPER_TABLE_1, paperFigureFor } from './paper-reference.ts';

describe('paper reference figures', () => {
  it("maps the web table's rows to the paper's WebArena-Lite figures", () => {
    expect(paperFigureFor('web:forum', 'DreamGym GRPO (BC init, synthetic only)')?.success).toBe(
      13.3,
    );
    expect(paperFigureFor('web:store', 'DreamGym PPO (BC init, synthetic only)')?.success).toBe(
      14.5,
    );
    expect(
      paperFigureFor(
        'web:store',
        'real RL, if it were possible (GRPO, BC init, 900 real steps = 12 min)',
      )?.success,
    ).toBe(7.3);
    expect(
      formatPaperFigure(paperFigureFor('web:forum', 'DreamGym PPO (BC init, synthetic only)')),
    ).toBe('14.5% (Llama-3.2-3B-Instruct, WebArena-Lite)');
  });

  it('has no figure for rows or benchmarks it does not hold, rather than a guess', () => {
    expect(paperFigureFor('webshop', 'GRPO (real, B = 20000)')).toBeUndefined();
    expect(paperFigureFor('web:forum', 'BC (SFT on offline demos)')).toBeUndefined();
    expect(
      paperFigureFor('web:forum', 'DPO (expert-labelled offline pairs, from BC)'),
    ).toBeUndefined();
    expect(paperFigureFor('web', 'DreamGym-S2R GRPO (synthetic, then 2000 real)')).toBeUndefined();
    expect(paperFigureFor('web', 'GRPO (real, small budget = 2000)')).toBeUndefined();
    expect(formatPaperFigure(undefined)).toBe('–');
  });

  it('names the backbone and the table of every figure', () => {
    for (const figure of PAPER_TABLE_1) {
      expect(figure.backbone).toBe('Llama-3.2-3B-Instruct');
      expect(figure.source).toBe('Table 1');
    }
  });
});
