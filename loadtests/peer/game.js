'use strict';
// IceCream (Jake Eakle, 2005) written for boardgame.io 0.50: the same game as Parlour's engine/icecream.
//
// The same setup (engine/icecream/data.json: two cones, bottom to top), the same moves (the top `scoops`
// scoops of one cone onto the other, costing that many movement points), the same turns (turn t has t
// points; it ends when they are spent), the same end (a flavour's four scoops stacked, checked after
// every move; with `turn_limit` a draw once that many turns pass without one) and the same seats
// (player '0' moves first and plays yellow unless `first_player_flavour` is green). The options come as
// the match's setupData, named as Parlour names them. loadtests/peer_check.py checks move by move that
// this game and Parlour's agree.

const { INVALID_MOVE } = require('boardgame.io/core');

const START_CONES = ['RYGRYG', 'RGYRGY'];
const FIXED_BOTTOM = 1; // 'The bottommost red pieces, if present, cannot be moved.'
const STACK_SIZE = 4; // 'When all four scoops of one flavor are in a consecutive stack'

/** The flavour letter of player '0' and of player '1'. */
function seatFlavours(firstPlayerFlavour) {
  return firstPlayerFlavour === 'green' ? ['G', 'Y'] : ['Y', 'G'];
}

/** How many scoops of a cone may move. */
function movableScoops(G, cone) {
  return G.cones[cone].length - FIXED_BOTTOM;
}

/** Every [fromCone, scoops] the points left allow, in Parlour's order (cone 0 first, fewest scoops first). */
function legalMoves(G) {
  const moves = [];
  for (const cone of [0, 1]) {
    const most = Math.min(G.pointsLeft, movableScoops(G, cone));
    for (let scoops = 1; scoops <= most; scoops++) moves.push([cone, scoops]);
  }
  return moves;
}

/** The seats ('0', '1') whose four scoops stand consecutively in one cone. */
function stackedSeats(G) {
  return seatFlavours(G.firstPlayerFlavour)
    .map((flavour, seat) => (G.cones.some((cone) => cone.includes(flavour.repeat(STACK_SIZE))) ? String(seat) : null))
    .filter((seat) => seat !== null);
}

/** 'X movement points can be spent to move the top X scoops of one cone to the top of the other cone'. */
function move({ G }, fromCone, scoops) {
  if ((fromCone !== 0 && fromCone !== 1) || !Number.isInteger(scoops) || scoops < 1) return INVALID_MOVE;
  if (scoops > G.pointsLeft || scoops > movableScoops(G, fromCone)) return INVALID_MOVE;
  const source = G.cones[fromCone];
  G.cones[fromCone] = source.slice(0, -scoops);
  G.cones[1 - fromCone] += source.slice(-scoops);
  G.pointsLeft -= scoops;
}

const IceCream = {
  name: 'icecream',
  minPlayers: 2,
  maxPlayers: 2,

  setup: (_context, setupData) => ({
    cones: [...START_CONES],
    turn: 1,
    pointsLeft: 1,
    firstPlayerFlavour: (setupData && setupData.first_player_flavour) || 'yellow',
    turnLimit: (setupData && setupData.turn_limit) || 0,
  }),

  moves: { move },

  turn: {
    // 'they get X + 1 movement points, where X is the number of movement points the previous player got.
    // The first player gets one movement point.' Turns alternate '0', '1', '0', ... (the default order).
    onBegin: ({ G, ctx }) => {
      G.turn = ctx.turn;
      G.pointsLeft = ctx.turn;
    },
    endIf: ({ G }) => G.pointsLeft === 0, // 'All movement points must be spent each turn.'
  },

  // Checked after every move, before the turn's end: a stack wins even mid-turn ('they win, even if it's
  // your turn and you're not done moving').
  endIf: ({ G }) => {
    const stacked = stackedSeats(G);
    if (stacked.length === 1) return { winner: stacked[0] };
    if (stacked.length === 2) return { draw: true }; // unreachable in play (Parlour's one-move-completes-both)
    if (G.turnLimit && G.pointsLeft === 0 && G.turn >= G.turnLimit) return { draw: true };
    return undefined;
  },

  ai: {
    enumerate: (G) => legalMoves(G).map((args) => ({ move: 'move', args })),
  },
};

module.exports = { IceCream, legalMoves };
