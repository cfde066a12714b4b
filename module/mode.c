// SPDX-License-Identifier: GPL-2.0
/*
 * The paths' modes, and the only code that changes them: sysfs for the
 * user, the watchdog for its reverts, init and exit.
 *
 * A path's mode is a plain word, not a static key: a key flip patches
 * text and IPIs every CPU, which an A/B run that flips often would pay on
 * the whole machine (docs/design.md, "Modes").  The word is written here
 * under abpath_mode_lock and read once per call by the hook callbacks, in
 * any context, so that a call runs, counts and is timed in one mode.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "abpath.h"
#include "mode.h"

const char *const abpath_mode_names[ABPATH_NR_MODES] = {
	[ABPATH_OPTIMIZED]	= "optimized",
	[ABPATH_LEGACY]		= "legacy",
};

/* Serializes mode changes, so that writing every path is all or nothing. */
static DEFINE_MUTEX(abpath_mode_lock);

/* A change of mode starts a new epoch; setting the mode it has is a no-op. */
static void abpath_apply_mode(struct abpath_path *p, enum abpath_mode mode)
{
	unsigned long state = p->state;

	lockdep_assert_held(&abpath_mode_lock);
	if (abpath_state_mode(state) == mode)
		return;
	state = ((state & ~ABPATH_STATE_MODE) + ABPATH_STATE_EPOCH) | mode;
	WRITE_ONCE(p->state, state);
}

/* A path whose site the backend could not attach has no legacy arm. */
static int abpath_mode_allowed(const struct abpath_path *p,
			       enum abpath_mode mode)
{
	return mode == ABPATH_LEGACY && p->unavailable ? -EOPNOTSUPP : 0;
}

int abpath_set_mode(struct abpath_path *p, enum abpath_mode mode)
{
	int ret = abpath_mode_allowed(p, mode);

	if (ret)
		return ret;
	mutex_lock(&abpath_mode_lock);
	abpath_apply_mode(p, mode);
	mutex_unlock(&abpath_mode_lock);
	return 0;
}

/* All or nothing: one path that cannot take @mode leaves every path as is. */
int abpath_set_all_modes(enum abpath_mode mode)
{
	struct abpath_path *p;
	int ret;

	abpath_for_each_path(p) {
		ret = abpath_mode_allowed(p, mode);
		if (ret)
			return ret;
	}
	mutex_lock(&abpath_mode_lock);
	abpath_for_each_path(p)
		abpath_apply_mode(p, mode);
	mutex_unlock(&abpath_mode_lock);
	return 0;
}

/*
 * The watchdog's revert: back to optimized only if the path is still in
 * the setting (mode and epoch) that the slow call ran under, never in one
 * chosen after it.  Returns whether it reverted.
 */
bool abpath_revert_mode(struct abpath_path *p, unsigned long state)
{
	bool revert;

	mutex_lock(&abpath_mode_lock);
	revert = p->state == state && abpath_state_mode(state) == ABPATH_LEGACY;
	if (revert)
		abpath_apply_mode(p, ABPATH_OPTIMIZED);
	mutex_unlock(&abpath_mode_lock);
	return revert;
}
