// @ts-check
// A finished hand, step by step: the table's log entries of that hand (GET
// /api/hands/{id}/events: {log_id, kind, boot_id, seq, ts, body} each) folded into one
// picture per step, in the shape renderBoard() draws. The hand is over, so each seat's
// concealed tiles are shown face up. A light fold (where the tiles are), not the referee:
// the verdicts are the service's (its violations and faults are shown at their events).

import { WINDS } from "./api.js";
import { codeOfId } from "./tiles.js";

const SEATS = 4;
const RESERVE = 16;
// Entries folded into the step before them (they change little that is seen).
const QUIET = new Set(["tiles_left", "shuffle_finished", "state", "invalid"]);

function emptySeat(seat) {
  return { seat, ids: [], melds: [], flowers: [], river: [], dead_hand: false, passed_win: false, declared: null, owed_replacements: 0 };
}

function removeId(list, id) {
  const i = list.indexOf(id);
  if (i >= 0) list.splice(i, 1);
  return i >= 0;
}

/**
 * The pictures of one hand. `hand`: its HandRow; `session`: its SessionRow (players, the
 * profile's seat order); `firstDealer`: the round's first dealer (起莊位, for 第N局);
 * `totalsBefore`/`totalsAfter`: each seat's money around the hand; `entries`: the route's
 * `entries`. Returns [{entry, picture}] — one per shown step, the first being the
 * table before the hand's first event.
 */
export function foldHand({ hand, session, firstDealer, totalsBefore, totalsAfter, entries }) {
  const seatOrder = typeof session?.profile === "object" && session.profile?.seat_order === "dealer" ? "dealer" : "opening";
  const base = {
    table: hand.table,
    players: session?.players ?? ["0", "1", "2", "3"],
    dealer: hand.dealer,
    streak: hand.streak,
    round_wind: hand.round_wind,
    deal_in_round: (((hand.dealer - (firstDealer ?? session?.start_seat ?? 0)) % SEATS) + SEATS) % SEATS + 1,
    totals: [...(totalsBefore ?? [0, 0, 0, 0])],
  };
  const g = {
    phase: "idle",
    wall: 144,
    dice: null,
    opening: null,
    turn: hand.dealer,
    step: "draw",
    pending: null, // {id, seat}
    seats: Array.from({ length: SEATS }, (_, s) => emptySeat(s)),
  };

  function wind(seat) {
    if (g.opening === null) return null;
    const first = seatOrder === "dealer" ? hand.dealer : g.opening;
    return WINDS[(((seat - first) % SEATS) + SEATS) % SEATS];
  }

  function picture(over = false) {
    return {
      ...base,
      totals: over && totalsAfter ? [...totalsAfter] : [...base.totals],
      hand: {
        phase: g.phase,
        dealer: hand.dealer,
        dice: g.dice,
        opening_seat: g.opening,
        turn: g.turn,
        step: g.step,
        tiles_left: g.wall,
        drawable: Math.max(0, g.wall - RESERVE),
        reserve: Math.min(g.wall, RESERVE),
        claimable: g.pending && g.phase === "play" ? { tile: codeOfId(g.pending.id), from_seat: g.pending.seat } : null,
        seats: g.seats.map((s) => ({
          seat: s.seat,
          concealed_count: s.ids.length,
          concealed: s.ids.map(codeOfId),
          melds: s.melds.map((m) => ({ kind: m.kind, tiles: m.ids.map(codeOfId), from_seat: m.from })),
          flowers: s.flowers.map(codeOfId),
          discards: s.river.map(codeOfId),
          dead_hand: s.dead_hand,
          passed_win: false,
          declared: s.declared,
          owed_replacements: 0,
          wind: wind(s.seat),
        })),
      },
    };
  }

  function apply(body) {
    const seat = body.seat;
    const s = seat !== undefined && seat >= 0 && seat < SEATS ? g.seats[seat] : null;
    switch (body.kind) {
      case "shuffle_started":
        g.phase = "shuffling";
        g.wall = 144;
        g.dice = null;
        g.opening = null;
        g.pending = null;
        g.seats = Array.from({ length: SEATS }, (_, i) => emptySeat(i));
        break;
      case "wall_built":
        g.phase = "built";
        g.wall = 2 * ((body.stacks_0 ?? 0) + (body.stacks_1 ?? 0) + (body.stacks_2 ?? 0) + (body.stacks_3 ?? 0));
        break;
      case "dice_rolled":
        g.dice = [body.die_1, body.die_2, body.die_3];
        if (body.roll === "deal") {
          const total = body.die_1 + body.die_2 + body.die_3;
          g.opening = (hand.dealer + total - 1) % SEATS;
          g.phase = "dealing";
        }
        break;
      case "tile_drawn":
        if (!s) break;
        g.wall = Math.max(0, g.wall - 1);
        for (const other of g.seats) if (removeId(other.river, body.tile)) break; // a tile put back
        s.ids.push(body.tile);
        if (g.phase === "play" || g.phase === "dealing") {
          if (g.pending && seat !== g.pending.seat) g.pending = null;
          g.turn = seat;
          g.step = "discard";
        }
        break;
      case "flower_revealed":
        if (!s) break;
        removeId(s.ids, body.tile);
        s.flowers.push(body.tile);
        break;
      case "tile_discarded":
        if (!s) break;
        removeId(s.ids, body.tile);
        s.river.push(body.tile);
        g.phase = "play";
        g.pending = { id: body.tile, seat };
        g.turn = (seat + 1) % SEATS;
        g.step = "draw";
        break;
      case "meld_exposed": {
        if (!s) break;
        const ids = [...body.tiles];
        if (body.meld === "kong_added") {
          const added = ids.find((id) => s.ids.includes(id)) ?? ids[ids.length - 1];
          removeId(s.ids, added);
          const kind = Math.floor(added / 4);
          const pong = s.melds.find((m) => m.kind === "pong" && Math.floor(m.ids[0] / 4) === kind);
          if (pong) {
            pong.kind = "kong_added";
            pong.ids.push(added);
          } else {
            s.melds.push({ kind: "kong_added", ids, from: null });
          }
        } else {
          const from = body.from_seat < SEATS ? body.from_seat : null;
          for (const id of ids) {
            if (from !== null && removeId(g.seats[from].river, id)) continue;
            removeId(s.ids, id);
          }
          s.melds.push({ kind: body.meld, ids, from });
        }
        g.pending = null;
        g.turn = seat;
        g.step = "discard";
        break;
      }
      case "seat_button":
        if (s && body.button === "ready") s.declared = s.river.length ? "earthly_ready" : "heavenly_ready";
        break;
      case "hand_revealed":
        g.phase = "over";
        break;
      default:
        break;
    }
  }

  const steps = [{ entry: null, picture: picture() }];
  entries.forEach((entry, i) => {
    if (entry.kind === "event" && entry.body) apply(entry.body);
    const last = i === entries.length - 1;
    if (last) g.phase = "over";
    const quiet = entry.kind === "event" && QUIET.has(entry.body?.kind) && !last;
    const shown = { entry, picture: picture(last) };
    if (quiet && steps.length > 1) steps[steps.length - 1] = { ...steps[steps.length - 1], picture: shown.picture, quiet: [...(steps[steps.length - 1].quiet ?? []), entry] };
    else steps.push(shown);
  });
  return steps;
}
