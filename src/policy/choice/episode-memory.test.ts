import { describe, expect, it } from 'vitest';
import { episodeMemory, kindOf, parseCommand } from './episode-memory.ts';

const obs = (text: string) => ({ text, instruction: 'put a clean plate in sinkbasin.' });

describe('episode memory', () => {
  it('remembers places, openings, sightings, what is held, treated and placed', () => {
    const history = [
      'go to fridge 1',
      'open fridge 1',
      'take plate 1 from fridge 1',
      'go to sinkbasin 1',
      'clean plate 1 with sinkbasin 1',
      'move plate 1 to sinkbasin 1',
      'go to countertop 1',
    ];
    const replies = [
      'You arrive at fridge 1. The fridge 1 is closed.',
      'You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, a plate 1, and a tomato 1.',
      'You pick up the plate 1 from the fridge 1.',
      'You arrive at sinkbasin 1. On the sinkbasin 1, you see nothing.',
      'You clean the plate 1 using the sinkbasin 1.',
      'You move the plate 1 to the sinkbasin 1.',
      'You arrive at countertop 1. On the countertop 1, you see a knife 1, and a plate 2.',
    ].map(obs);
    const m = episodeMemory(history, replies);
    expect(m.location).toBe('countertop 1');
    expect([...m.visits]).toEqual([
      ['fridge 1', 1],
      ['sinkbasin 1', 1],
      ['countertop 1', 1],
    ]);
    expect(m.opened.has('fridge 1')).toBe(true);
    expect(m.seenAt.get('egg 2')).toBe('fridge 1');
    expect(m.seenAt.get('plate 2')).toBe('countertop 1');
    expect(m.seenAt.get('plate 1')).toBe('sinkbasin 1');
    expect(m.held).toBeUndefined();
    expect(m.treated.has('clean:plate 1')).toBe(true);
    expect(m.placed.get('plate 1')).toBe('sinkbasin 1');
  });

  it('ignores actions the env refused', () => {
    const m = episodeMemory(
      ['take plate 1 from fridge 1', 'open drawer 1'],
      [obs('Nothing happens.'), obs('Nothing happens.')],
    );
    expect(m.held).toBeUndefined();
    expect(m.opened.size).toBe(0);
  });

  it('holds the taken object until it is put down', () => {
    const m = episodeMemory(
      ['go to countertop 1', 'take apple 1 from countertop 1'],
      [
        obs('You arrive at countertop 1. On the countertop 1, you see a apple 1.'),
        obs('You pick up the apple 1 from the countertop 1.'),
      ],
    );
    expect(m.held).toBe('apple 1');
    expect(m.seenAt.has('apple 1')).toBe(false);
  });

  it('parses commands and kinds', () => {
    expect(parseCommand('put mug 1 in/on coffeemachine 1')).toEqual({
      verb: 'move',
      object: 'mug 1',
      target: 'coffeemachine 1',
    });
    expect(parseCommand('heat egg 2 with microwave 1')?.verb).toBe('heat');
    expect(parseCommand('look')).toBeUndefined();
    expect(kindOf('cabinet 11')).toBe('cabinet');
  });
});
