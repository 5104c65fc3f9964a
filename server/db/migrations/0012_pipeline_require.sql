-- A guard for statements sent together in one pipeline (server/db/pipeline.ts): the steps after a
-- conditional write must not run when it wrote nothing, and the only way one statement stops the ones
-- after it is an error, which rolls the whole batch back.
CREATE FUNCTION ipam_require(condition boolean, failure text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF condition IS NOT TRUE THEN
    RAISE EXCEPTION '%', failure USING ERRCODE = 'P0001';
  END IF;
END;
$$;
