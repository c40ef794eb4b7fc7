import { test } from 'vitest-energy'

test('screen 4 step 1', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(253)
})
test('screen 4 step 2', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(389)
})
test('screen 4 step 3', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(470)
})
test('screen 4 step 4', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(301)
})
test('screen 4 step 5', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(451)
})
test('screen 4 step 6', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(391)
})
test('screen 4 step 7', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(457)
})
test('screen 4 step 8', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(413)
})
test('screen 4 step 9', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(434)
})
test('screen 4 step 10', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(374)
})
