'use strict';
// The JS side of loadtests/peer_check.py: plays IceCream through boardgame.io's own game reducer (the one its
// server's master runs) as told on stdin, one JSON command a line, answering one JSON line each:
//   {"op": "new", "options": {...}}            a new match with these options as setupData
//   {"op": "move", "args": [fromCone, scoops]}  the current player makes the move
// Each answer: {"ok": <false when the reducer refused the move>, "player": ctx.currentPlayer,
// "moves": ai.enumerate's moves for the current player, "gameover": ctx.gameover or null, "state": G}.

const readline = require('readline');
const { InitializeGame, CreateGameReducer, ProcessGameConfig } = require('boardgame.io/internal');
const { IceCream } = require('./game');

const game = ProcessGameConfig(IceCream);
const reducer = CreateGameReducer({ game, isClient: false });
let state = null;

// boardgame.io logs refused moves with console.error: keep stdout for the answers.
console.log = console.error;

function answer(ok) {
  const { G, ctx } = state;
  const moves = ctx.gameover === undefined ? game.ai.enumerate(G, ctx, ctx.currentPlayer) : [];
  const line = { ok, player: ctx.currentPlayer, moves: moves.map((m) => m.args), gameover: ctx.gameover ?? null, state: G };
  process.stdout.write(JSON.stringify(line) + '\n');
}

readline.createInterface({ input: process.stdin }).on('line', (text) => {
  const command = JSON.parse(text);
  if (command.op === 'new') {
    state = InitializeGame({ game, numPlayers: 2, setupData: command.options });
    answer(true);
  } else if (command.op === 'move') {
    const before = state._stateID;
    const action = { type: 'MAKE_MOVE', payload: { type: 'move', args: command.args, playerID: state.ctx.currentPlayer } };
    const { transients, ...after } = reducer(state, action);
    const refused = transients !== undefined && transients.error !== undefined;
    if (!refused) state = after;
    answer(!refused && state._stateID === before + 1);
  } else {
    throw new Error(`unknown op ${command.op}`);
  }
});
