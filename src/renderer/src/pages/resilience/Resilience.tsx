import { Activity } from './Activity';
import { Breakers } from './Breakers';
import { ConnectionStates } from './ConnectionStates';
import { Lockouts } from './Lockouts';
import { QueuesLeasesSessions } from './QueuesLeasesSessions';

export function Resilience() {
  return (
    <>
      <Breakers />
      <ConnectionStates />
      <Lockouts />
      <QueuesLeasesSessions />
      <Activity />
    </>
  );
}
