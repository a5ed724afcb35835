import { describe, expect, it } from 'vitest';
import { actionCodec } from './action-codec.ts';

/** An OpenEnv action schema as Pydantic writes it: OpenEnv's `metadata` plus the env's fields. */
function actionSchema(fields: Record<string, unknown>, required: string[]) {
  return {
    additionalProperties: false,
    properties: { metadata: { type: 'object', additionalProperties: true }, ...fields },
    required,
    title: 'Action',
    type: 'object',
  };
}

describe('text actions as OpenEnv action objects', () => {
  it('a single string field takes the text as it is', () => {
    const codec = actionCodec(actionSchema({ message: { type: 'string' } }, ['message']));
    expect(codec.encode('[guess] crane')).toEqual({ action: { message: '[guess] crane' } });
    expect(codec.encode(' print(1) ')).toEqual({ action: { message: ' print(1) ' } });
  });

  it('a single number, integer or boolean field takes the text parsed, or refuses it', () => {
    const integer = actionCodec(actionSchema({ action_id: { type: 'integer' } }, ['action_id']));
    expect(integer.encode(' 12 ')).toEqual({ action: { action_id: 12 } });
    expect(integer.encode('1.5')).toEqual({
      invalid:
        '"1.5" is not a whole number, and this server\'s action is {"action_id": <a whole number>}.',
    });
    const number = actionCodec(actionSchema({ x: { type: 'number' } }, ['x']));
    expect(number.encode('-0.25')).toEqual({ action: { x: -0.25 } });
    expect(number.encode('left')).toHaveProperty('invalid');
    const flag = actionCodec(actionSchema({ stop: { type: 'boolean' } }, ['stop']));
    expect(flag.encode('true')).toEqual({ action: { stop: true } });
    expect(flag.encode('yes')).toHaveProperty('invalid');
  });

  it('follows $ref enums and Optional[...] to the field kind', () => {
    const schema = {
      ...actionSchema({ move: { $ref: '#/$defs/Move' } }, ['move']),
      $defs: { Move: { enum: ['up', 'down'], type: 'string' } },
    };
    const codec = actionCodec(schema);
    expect(codec.encode('up')).toEqual({ action: { move: 'up' } });
    expect(codec.encode('sideways')).toEqual({
      invalid:
        '"sideways" is not one of "up", "down", and this server\'s action is {"move": <one of "up", "down">}.',
    });
    const optional = actionCodec(
      actionSchema({ n: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null } }, []),
    );
    expect(optional.encode('3')).toEqual({ action: { n: 3 } });
  });

  it('any other action is written as a JSON object', () => {
    const codec = actionCodec(
      actionSchema({ x: { type: 'integer' }, y: { type: 'integer' } }, ['x', 'y']),
    );
    expect(codec.encode('{"x": 3, "y": 4}')).toEqual({ action: { x: 3, y: 4 } });
    expect(codec.encode('3 4')).toEqual({
      invalid:
        'this server\'s actions are JSON objects (its GET /schema): write e.g. {"x": …, "y": …}.',
    });
    expect(codec.encode('[3, 4]')).toHaveProperty('invalid');
    const nested = actionCodec(actionSchema({ tool: { type: 'object' } }, ['tool']));
    expect(nested.encode('{"tool": {"name": "ls"}}')).toEqual({ action: { tool: { name: 'ls' } } });
  });

  it('with no schema published, actions are JSON objects too', () => {
    const codec = actionCodec(undefined);
    expect(codec.encode('{"a": 1}')).toEqual({ action: { a: 1 } });
    expect(codec.encode('a')).toEqual({
      invalid:
        "this server's actions are JSON objects (the server publishes no /schema): write e.g. {…}.",
    });
  });

  it('empty text is never an action', () => {
    for (const codec of [
      actionCodec(actionSchema({ message: { type: 'string' } }, ['message'])),
      actionCodec(undefined),
    ]) {
      expect(codec.encode('  ')).toEqual({ invalid: 'an empty action names nothing to do.' });
    }
  });
});
